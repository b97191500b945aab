#pragma once
/// @file
/// Whole states (q, v, qdd, tau) in another library's layout, converted exactly to and from abdyn's.
///
/// abdyn's layout (joint.hpp): joints in body order; a quaternion is (qw, qx, qy, qz); a floating joint
/// has q = (x, y, z, qw, qx, qy, qz) and v = [w_b; v_b], the body's spatial velocity in body
/// coordinates; a spherical joint's v is its angular velocity in the child frame. Other libraries differ
/// in four ways, which a StateLayout states: the quaternion's order, where its w is stored, which frame
/// and order the free joint's velocity uses, and whether a continuous joint's angle is stored as
/// (cos, sin). Joints are matched by name (JointOrder), because
/// libraries number the same URDF's joints differently.
///
/// For a free joint with orientation R (body to parent; the parent is the world for a root joint placed
/// at the world origin, as URDF loaders make it) the velocity layouts are related by
///   world-linear:  (pdot, w_b) with pdot = R v_b, p in the parent   (MuJoCo, Brax, RBDL's floating base)
///   derivative:    (pddot, wdot_b), pddot = R (vdot_b + w_b x v_b)
///   force:         (R f_b, n_b), the dual of (pdot, w_b), so power is the same in both layouts.
/// Planar joints have no common layout in these libraries; converting a model with one throws.

#include <string>
#include <vector>

#include <Eigen/Core>

#include "abdyn/model/model.hpp"

namespace abdyn {

/// A state of a model: configuration q, velocity v, acceleration qdd and joint forces tau. Empty vectors
/// are allowed where a conversion does not need them (they stay empty).
struct State {
  Eigen::VectorXd q;  ///<configuration (nq in abdyn's layout)
  Eigen::VectorXd v;  ///<velocity (nv)
  Eigen::VectorXd qdd;  ///<acceleration (nv)
  Eigen::VectorXd tau;  ///<joint forces (nv)
};

/// Names of abdyn's joints in the other library's order (a permutation of all the model's joints);
/// empty means abdyn's own order.
using JointOrder = std::vector<std::string>;

/// How a free (floating) joint's 6 velocity coordinates are laid out.
enum class FreeVelocityLayout {
  BodyAngularLinear,       ///< [w_b; v_b]: abdyn
  BodyLinearAngular,       ///< [v_b; w_b]: Pinocchio
  WorldLinearBodyAngular,  ///< [pdot; w_b], pdot = velocity of the origin in the world: MuJoCo, Brax, RBDL
};

/// How another library lays out q and v (quaternion order and place, free-joint velocity, continuous joints).
struct StateLayout {
  std::string library;                    ///< named in error messages
  bool quaternion_w_last = false;          ///< a quaternion stored (x, y, z, w) instead of (w, x, y, z)
  bool quaternion_w_at_end_of_q = false;   ///< RBDL: a quaternion joint's own slot holds (x, y, z); the w's
                                           ///< of all quaternion joints follow, in joint order, after the nv
                                           ///< other coordinates
  FreeVelocityLayout free_velocity = FreeVelocityLayout::BodyAngularLinear;  ///<the free joint's 6 velocity coordinates
  bool continuous_as_cos_sin = false;      ///< Pinocchio: a continuous (unbounded revolute) joint's q is
                                           ///< (cos, sin) of its angle; converted back with atan2, so
                                           ///< angles return in [-pi, pi]
};

/// The same state in `layout`. Throws abdyn::InvalidArgument when q is not nq long (for stateToAbdyn:
/// the other library's length, nq plus one per continuous joint with continuous_as_cos_sin), when v, qdd or tau
/// is neither empty nor nv long, or qdd is given without v; abdyn::Error when `order` is not a
/// permutation of the model's joint names or the model has a planar joint.
State stateFromAbdyn(const Model& model, const State& abdyn_state, const StateLayout& layout,
                     const JointOrder& order = {});
/// The inverse of stateFromAbdyn, with the same checks.
State stateToAbdyn(const Model& model, const State& other_state, const StateLayout& layout,
                   const JointOrder& order = {});

}  // namespace abdyn
