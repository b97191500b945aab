#pragma once
/// @file
/// RBDL's spatial objects and state layout, mirrored without depending on RBDL (RBDL 3.3,
/// include/rbdl/SpatialAlgebraOperators.h, src/Joint.cc, src/Model.cc, addons/urdfreader).
///
///   SpatialVector            6-vector, angular first: the same numbers as abdyn's Motion and Force.
///   SpatialTransform (E, r)  Featherstone's plx(E, r), left-associative: exactly abdyn's Plx.
///   SpatialRigidBodyInertia  (m, h, I): mass, first moment h = m c (not the centre of mass), and the
///                            rotational inertia about the frame origin (not about the centre of mass).
///   Floating base (URDF)     a TranslationXYZ joint followed by a Spherical one. q = (x, y, z, qx, qy,
///                            qz, ..., qw): the w of every spherical joint is stored after all other
///                            coordinates (Model::multdof3_w_index). v = (pdot, w_b): the origin's
///                            velocity in the world, then the angular velocity in the body.
///   Spherical joints         quaternion (x, y, z) in place, w at the end of q; v in the child frame.

#include <Eigen/Core>

#include "abdyn/conventions/state_layout.hpp"
#include "abdyn/spatial/plx.hpp"

/// RBDL's types (SpatialTransform, SpatialRigidBodyInertia), external forces and state layout, and conversions to and from abdyn's.
namespace abdyn::rbdl {

using SpatialVector = Vector6;  ///< [angular; linear]

/// RBDL's SpatialTransform: X = [E 0; -E rx E], maps A-coordinates to B-coordinates.
struct SpatialTransform {
  Matrix3 E = Matrix3::Identity();  ///<rotates A-coordinates into B-coordinates
  Vector3 r = Vector3::Zero();  ///<B's origin in A coordinates
};

/// RBDL's SpatialRigidBodyInertia, its lower triangle Ixx..Izz kept as the full symmetric matrix I.
struct SpatialRigidBodyInertia {
  double m = 0.0;  ///<mass, kg
  Vector3 h = Vector3::Zero();  ///< first moment m c
  Matrix3 I = Matrix3::Zero();  ///< rotational inertia about the frame origin
};

/// The same transform X_B_A (same E and r).
inline SpatialTransform fromAbdyn(const Plx& X_B_A) { return {X_B_A.E(), X_B_A.r()}; }
/// The same transform as a Plx.
inline Plx toAbdyn(const SpatialTransform& X_B_A) { return Plx(X_B_A.E, X_B_A.r); }

///@{
/// The same spatial vector (both angular first).
inline SpatialVector fromAbdyn(const Motion& m) { return m.vector(); }
inline SpatialVector fromAbdyn(const Force& f) { return f.vector(); }
inline Motion toAbdynMotion(const SpatialVector& m) { return Motion(m); }
inline Force toAbdynForce(const SpatialVector& f) { return Force(f); }
///@}

/// The same inertia: m, h = m c, I about the frame origin.
inline SpatialRigidBodyInertia fromAbdyn(const RigidBodyInertia& I) {
  return {I.mass(), I.firstMoment(), I.inertiaAboutOrigin()};
}
/// c = h / m, Ic = I + m cx cx. Throws abdyn::Error for a massless inertia with a nonzero first moment
/// (no rigid body has one) or one that is not a valid rigid body.
RigidBodyInertia toAbdyn(const SpatialRigidBodyInertia& I);

/// One entry of RBDL's f_ext (ForwardDynamics, InverseDynamics: world coordinates, about the world
/// origin) from abdyn's f_ext entry for the same body (body coordinates, about its origin), with
/// X_body_world: data.X_body_world[body] after forward kinematics.
inline SpatialVector externalForceFromAbdyn(const Plx& X_body_world, const Force& f_body) {
  return X_body_world.applyInverse(f_body).vector();
}
/// The inverse of externalForceFromAbdyn.
inline Force externalForceToAbdyn(const Plx& X_body_world, const SpatialVector& f_world) {
  return X_body_world.apply(Force(f_world));
}

/// RBDL's state layout (see the header comment).
StateLayout stateLayout();
/// A state of `model` in RBDL's layout; `order` names the joints in RBDL's order (empty: abdyn's).
inline State stateFromAbdyn(const Model& model, const State& s, const JointOrder& order = {}) {
  return abdyn::stateFromAbdyn(model, s, stateLayout(), order);
}
/// The inverse of stateFromAbdyn: a state in this library's layout and `order` as abdyn's state.
inline State stateToAbdyn(const Model& model, const State& s, const JointOrder& order = {}) {
  return abdyn::stateToAbdyn(model, s, stateLayout(), order);
}

}  // namespace abdyn::rbdl
