#pragma once
/// @file
/// Pinocchio's spatial objects and state layout, mirrored without depending on Pinocchio (Pinocchio
/// 3.7, include/pinocchio/spatial/{se3-tpl,motion-dense,force-dense,inertia}.hpp,
/// multibody/joint/joint-{free-flyer,spherical}.hpp).
///
///   Motion, Force     linear first: [v; w] and [f; n] (abdyn is angular first).
///   SE3 (R, p)        a pose: R = R_A_B, p = p_A_B of frame B in A (Pinocchio's oMi). SE3::act maps
///                     B-coordinates to A-coordinates, so SE3(R, p) is the inverse of abdyn's
///                     X_B_A = Plx::fromPose(R, p), and the same pose as Plxb(R, p).
///   Inertia           (mass, lever, inertia): the centre of mass c and the rotational inertia about c.
///   Free flyer        q = (x, y, z, qx, qy, qz, qw), w last; v = [v_b; w_b], the body's spatial velocity
///                     in body coordinates, linear first.
///   Spherical         q = (qx, qy, qz, qw); v = angular velocity in the child frame.
///   Continuous        (JointModelRevoluteUnbounded) q = (cos, sin) of the angle: one more q coordinate.

#include "abdyn/conventions/state_layout.hpp"
#include "abdyn/spatial/plxb.hpp"

/// Pinocchio's types (SE3, Motion, Force, Inertia; linear first) and state layout, and conversions to and from abdyn's.
namespace abdyn::pinocchio {

/// Pinocchio's SE3: the pose M_A_B of frame B in frame A.
struct SE3 {
  Matrix3 rotation = Matrix3::Identity();  ///< R_A_B
  Vector3 translation = Vector3::Zero();   ///< p_A_B
};

/// Pinocchio's Motion: linear part first.
struct Motion {
  Vector3 linear = Vector3::Zero();   ///< linear velocity
  Vector3 angular = Vector3::Zero();  ///< angular velocity
  /// Pinocchio's toVector(): [linear; angular].
  Vector6 toVector() const {
    Vector6 x;
    x << linear, angular;
    return x;
  }
};

/// Pinocchio's Force: linear part first.
struct Force {
  Vector3 linear = Vector3::Zero();   ///< force
  Vector3 angular = Vector3::Zero();  ///< moment about the frame origin
  /// Pinocchio's toVector(): [linear; angular].
  Vector6 toVector() const {
    Vector6 x;
    x << linear, angular;
    return x;
  }
};

/// Pinocchio's Inertia: mass, centre of mass (lever) and rotational inertia about it.
struct Inertia {
  double mass = 0.0;  ///<kg
  Vector3 lever = Vector3::Zero();       ///< centre of mass
  Matrix3 inertia = Matrix3::Zero();     ///< about the centre of mass
};

/// The pose of B in A described by X_B_A.
inline SE3 fromAbdyn(const Plx& X_B_A) { return {X_B_A.E().transpose(), X_B_A.r()}; }
/// X_B_A from the pose M_A_B of B in A.
inline Plx toAbdyn(const SE3& M_A_B) { return Plx::fromPose(M_A_B.rotation, M_A_B.translation); }
/// The same pose: Plxb(R_P_C, p_P_C) is SE3(R_P_C, p_P_C).
inline SE3 fromAbdyn(const Plxb& T_P_C) { return {T_P_C.rotation(), T_P_C.position()}; }
/// The same pose as a Plxb T_P_C.
inline Plxb toAbdynPlxb(const SE3& M_P_C) { return Plxb(M_P_C.rotation, M_P_C.translation); }

/// The same motion, reordered linear first.
inline Motion fromAbdyn(const abdyn::Motion& m) { return {m.linear(), m.angular()}; }
/// The same motion as an abdyn::Motion (angular first).
inline abdyn::Motion toAbdyn(const Motion& m) { return abdyn::Motion(m.angular, m.linear); }
/// The same force, reordered linear first.
inline Force fromAbdyn(const abdyn::Force& f) { return {f.linear(), f.angular()}; }
/// The same force as an abdyn::Force (angular first).
inline abdyn::Force toAbdyn(const Force& f) { return abdyn::Force(f.angular, f.linear); }

/// The same inertia (mass, centre of mass, inertia about it).
inline Inertia fromAbdyn(const RigidBodyInertia& I) { return {I.mass(), I.com(), I.inertiaAboutCom()}; }
/// Throws abdyn::Error if the inertia is not a valid rigid body.
inline RigidBodyInertia toAbdyn(const Inertia& I) { return RigidBodyInertia(I.mass, I.lever, I.inertia); }

/// Pinocchio's state layout (see the header comment).
StateLayout stateLayout();
/// A state of `model` in Pinocchio's layout; `order` names the joints in Pinocchio's order (empty: abdyn's).
inline State stateFromAbdyn(const Model& model, const State& s, const JointOrder& order = {}) {
  return abdyn::stateFromAbdyn(model, s, stateLayout(), order);
}
/// The inverse of stateFromAbdyn: a state in this library's layout and `order` as abdyn's state.
inline State stateToAbdyn(const Model& model, const State& s, const JointOrder& order = {}) {
  return abdyn::stateToAbdyn(model, s, stateLayout(), order);
}

}  // namespace abdyn::pinocchio
