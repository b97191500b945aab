#pragma once
// Which of the model's joint-space terms the dynamics algorithms include. The same options must be
// given to inverse and forward dynamics for the two to be each other's inverse.

namespace abdyn {

struct DynamicsOptions {
  /// Armature (rotor inertia reflected to the joint, Model::armature): adds armature(k) to M(k, k).
  bool armature = true;
  /// Viscous damping (Model::damping): a passive joint force -damping(k) v(k). Inverse dynamics
  /// returns the torque that overcomes it; forward dynamics applies it.
  bool damping = true;
};

}  // namespace abdyn
