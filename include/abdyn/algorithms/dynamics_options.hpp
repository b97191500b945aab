#pragma once
/// @file
/// Which of the model's joint-space terms the dynamics algorithms include. The same options must be
/// given to inverse and forward dynamics for the two to be each other's inverse.

namespace abdyn {

/// The joint-space terms (armature, damping, implicit damping) the dynamics include; see the file comment.
struct DynamicsOptions {
  /// Armature (rotor inertia reflected to the joint, Model::armature): adds armature(k) to M(k, k).
  bool armature = true;
  /// Viscous damping (Model::damping): a passive joint force -damping(k) v(k). Inverse dynamics
  /// returns the torque that overcomes it; forward dynamics applies it.
  bool damping = true;
  /// Implicit damping (integrators/implicit_damping_euler.hpp): a time step h >= 0 (s). With damping on,
  /// the joint-space inertia becomes M + h diag(damping), so that forward dynamics returns
  /// (M + h D)^-1 (tau - C v - g - D v), the acceleration of a velocity step that takes the damping force
  /// at the end of the step; inverse dynamics adds h D qdd to match. 0 (the default): M alone.
  double implicit_damping_step = 0.0;
};

}  // namespace abdyn
