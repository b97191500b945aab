#pragma once
/// @file
/// MuJoCo's body poses and state layout, mirrored without depending on MuJoCo (include/mujoco/mjmodel.h,
/// mjdata.h; the free and ball joints of src/engine/engine_core_smooth.c).
///
///   xpos, xquat   a body's pose in the world: position and orientation quaternion (w, x, y, z).
///   Free joint    q = (x, y, z, qw, qx, qy, qz); v = [pdot; w_b]: the origin's velocity in the world,
///                 then the angular velocity in the body frame; qacc is their time derivative and qfrc
///                 their dual, (world force, body moment about the body origin).
///   Ball joint    q = (qw, qx, qy, qz); v = angular velocity in the child frame.
///   Gravity       mjOption::gravity, in world coordinates (abdyn's Model::gravity()).
///   xfrc_applied  per body: force and torque in world axes, the torque about the body's centre of mass.

#include "abdyn/conventions/state_layout.hpp"
#include "abdyn/spatial/plxb.hpp"

/// MuJoCo's pose, applied-force and state layouts, and conversions to and from abdyn's.
namespace abdyn::mujoco {

/// A pose as MuJoCo stores it (xpos, xquat): C's origin and orientation in P, quaternion w first.
struct Pose {
  Vector3 pos = Vector3::Zero();  ///<C's origin in P coordinates
  Vector4 quat = Vector4(1.0, 0.0, 0.0, 0.0);  ///< (w, x, y, z)
};

/// The pose T_P_C. The quaternion is the one of R_P_C with w >= 0 (q and -q are the same rotation).
Pose fromAbdyn(const Plxb& T_P_C);
/// Throws abdyn::Error for a zero or non-finite quaternion; a non-unit one is normalised.
Plxb toAbdyn(const Pose& T_P_C);

/// One row of MuJoCo's xfrc_applied (force, then torque about the body's centre of mass, both in world
/// axes) from abdyn's f_ext entry for the same body (body coordinates, about its origin), with
/// X_body_world: data.X_body_world[body] and com_body the centre of mass MuJoCo uses, in body coordinates.
Vector6 xfrcAppliedFromAbdyn(const Plx& X_body_world, const Vector3& com_body, const Force& f_body);
/// The inverse of xfrcAppliedFromAbdyn.
Force xfrcAppliedToAbdyn(const Plx& X_body_world, const Vector3& com_body, const Vector6& xfrc);

/// MuJoCo's state layout (see the header comment).
StateLayout stateLayout();
/// A state of `model` in MuJoCo's layout; `order` names the joints in MuJoCo's order (empty: abdyn's).
inline State stateFromAbdyn(const Model& model, const State& s, const JointOrder& order = {}) {
  return abdyn::stateFromAbdyn(model, s, stateLayout(), order);
}
/// The inverse of stateFromAbdyn: a state in this library's layout and `order` as abdyn's state.
inline State stateToAbdyn(const Model& model, const State& s, const JointOrder& order = {}) {
  return abdyn::stateToAbdyn(model, s, stateLayout(), order);
}

}  // namespace abdyn::mujoco
