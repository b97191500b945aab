#pragma once
/// @file
/// Loop closures: holonomic constraints that close kinematic loops on a tree, enforced by Lagrange
/// multipliers (see constrained_dynamics.hpp).
///
/// A closure joins frame Fa, fixed on body a, to frame Fb, fixed on body b (either may be the world, body
/// 0). The relative pose of Fb in Fa is (R_rel, p_rel) = (R_0_Fa^T R_0_Fb, R_0_Fa^T (p_Fb - p_Fa)). The
/// closure constrains chosen directions of it, each a row [n_ang; n_lin] in Fa coordinates:
///   C(q) = P [log(R_rel); p_rel]                  (angular part through the SO(3) log)
///   G v  = P [R_0_Fa^T (w_b - w_a); R_0_Fa^T (v_b(p_Fb) - v_a(p_Fb))]
/// with w the bodies' angular velocities and v_x(p) the velocity of the point of body x at p, all in world
/// coordinates. G v is the spatial velocity of Fb relative to Fa in Fa coordinates: d/dt p_rel exactly, and
/// the angular velocity of R_rel (dR_rel/dt = [w_rel]x R_rel). Hence dC/dt = G v for the linear rows, and
/// for the angular rows dC/dt = P Jl^-1(log R_rel) w_rel, equal to G v where the closure holds with
/// R_rel = 1 (fixed and prismatic closures). gamma = -(dG/dt) v is the relative acceleration at qdd = 0.

#include <string>
#include <vector>

#include "abdyn/model/data.hpp"

namespace abdyn {

/// A loop-closing joint between frame Fa on body a and frame Fb on body b: the rows `directions` of
/// Fb's motion relative to Fa are held at zero (see the file comment).
struct LoopClosure {
  std::string name;             ///< named in error messages
  int body_a = 0;               ///< predecessor body (0: the world)
  Matrix3 R_a = Matrix3::Identity();  ///< orientation of Fa in body a (columns: Fa's axes in body-a coordinates)
  Vector3 p_a = Vector3::Zero();      ///< origin of Fa in body-a coordinates
  int body_b = 0;               ///< successor body (0: the world)
  Matrix3 R_b = Matrix3::Identity();  ///< orientation of Fb in body b (columns: Fb's axes in body-b coordinates)
  Vector3 p_b = Vector3::Zero();      ///< origin of Fb in body-b coordinates
  /// The constrained directions, one row [n_ang; n_lin] each, in Fa coordinates (unit vectors, each row
  /// either angular or linear).
  Eigen::Matrix<double, Eigen::Dynamic, 6> directions;

  /// Fb welded to Fa: 6 rows.
  static LoopClosure fixed(std::string name, int body_a, const Plx& X_Fa_a, int body_b, const Plx& X_Fb_b);
  /// Fb's origin held at Fa's: 3 linear rows.
  static LoopClosure spherical(std::string name, int body_a, const Plx& X_Fa_a, int body_b, const Plx& X_Fb_b);
  /// Fb turns relative to Fa about `axis` (unit, Fa coordinates) through Fa's origin: 2 angular + 3 linear rows.
  static LoopClosure revolute(std::string name, int body_a, const Plx& X_Fa_a, int body_b, const Plx& X_Fb_b,
                              const Vector3& axis);
  /// Fb slides relative to Fa along `axis` (unit, Fa coordinates): 3 angular + 2 linear rows.
  static LoopClosure prismatic(std::string name, int body_a, const Plx& X_Fa_a, int body_b, const Plx& X_Fb_b,
                               const Vector3& axis);

  /// Number of constrained directions (rows).
  int rows() const { return static_cast<int>(directions.rows()); }
};

/// A joint-space coupling row q_follower - (multiplier q_leader + offset) = 0 between two one-coordinate
/// joints (URDF mimic joints).
struct JointCoupling {
  std::string name;         ///< named in error messages
  int follower = 0;         ///< body (= joint) index of the following joint
  int leader = 0;           ///< body (= joint) index of the leading joint
  double multiplier = 1.0;  ///< q_follower = multiplier q_leader + offset
  double offset = 0.0;      ///< rad or m
};

/// All constraints of a closed-chain system. validate() checks them against the model and throws
/// abdyn::InvalidArgument naming the constraint and what is wrong.
struct ConstraintSet {
  std::vector<LoopClosure> loops;         ///< loop-closing joints
  std::vector<JointCoupling> couplings;   ///< joint-space couplings

  /// Number of rows m: every closure's directions plus one per coupling.
  int rows() const;
  /// Throws abdyn::InvalidArgument naming the first constraint that does not fit `model`.
  void validate(const Model& model) const;
  /// The model's URDF mimic joints as couplings.
  static ConstraintSet fromMimics(const Model& model);
};

/// Constraint quantities at (q, v), into preallocated storage (sized by the constructor).
struct ConstraintKinematics {
  /// Storage for `model` and `constraints` (m rows).
  ConstraintKinematics(const Model& model, const ConstraintSet& constraints);

  Eigen::VectorXd C;      ///< m: position error
  Eigen::MatrixXd G;      ///< m x nv: velocity Jacobian (G v: relative velocities, see above)
  Eigen::MatrixXd G_exact;  ///< m x nv: dC/dq along v coordinates (G with Jl^-1 on the angular rows)
  Eigen::VectorXd gamma;  ///< m: -(dG/dt) v
  Matrix6X S_world;       ///< 6 x nv scratch: joint axes in world coordinates (of moved_coordinates only)
  std::vector<int> moved_coordinates;  ///< the coordinates that move a closure's body (its ancestors' joints)
  Matrix6X G6;            ///< 6 x nv scratch: one closure's unselected Jacobian
  Eigen::VectorXd zero_nv;  ///< qdd = 0 for the bias
};

/// C(q) and G(q) (and G_exact); runs forwardKinematics(q).
void constraintJacobian(const Model& model, Data& data, const ConstraintSet& constraints, ConstraintKinematics& ck,
                        const Eigen::VectorXd& q);
/// C, G, G_exact and gamma at (q, v); runs forwardKinematics(q, v, 0).
void constraintKinematics(const Model& model, Data& data, const ConstraintSet& constraints, ConstraintKinematics& ck,
                          const Eigen::VectorXd& q, const Eigen::VectorXd& v);

}  // namespace abdyn
