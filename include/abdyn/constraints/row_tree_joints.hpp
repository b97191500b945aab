#pragma once
/// @file
/// Rows on the tree's own joints, each acting on one or two velocity coordinates (J = e_k or a
/// combination): position limits, motors, Coulomb joint friction and mimic couplings.
///   limit     one-DoF joint k with finite bounds: lower C = q_k - lower with J = e_k, upper C = upper - q_k
///             with J = -e_k; unilateral (impulse >= 0) and added only while C < margin; target from
///             unilateralTarget (capped by max_push_velocity once passed), so the joint stops at the bound
///             instead of passing it.
///   motor     J = e_k, target = the velocity target, |impulse| <= max_effort h (a torque bound over the step).
///   friction  J = e_k, target 0, |impulse| <= friction_k h (Model::friction, the URDF friction attribute).
///   mimic     J = e_follower - m e_leader, C = q_follower - m q_leader - offset, bilateral, target -(erp / h) C.

#include <cstdint>
#include <limits>

#include "abdyn/constraints/rows.hpp"

namespace abdyn {

/// A velocity motor on one velocity coordinate: a row driving v_k to target_velocity within +-max_effort h.
struct JointMotor {
  int coordinate = 0;            ///< velocity coordinate k driven by the motor
  double target_velocity = 0.0;  ///< rad/s or m/s
  double max_effort = 0.0;       ///< N m or N, >= 0
};

/// Limit rows for every one-DoF joint whose position lies within `margin` of a finite bound. A limit passed by
/// d asks for a speed back of erp d / h, capped at `max_push_velocity` (rad/s or m/s): a joint that starts far
/// past its range (a file's default pose outside it) comes back at that speed instead of being thrown.
void addJointLimitRows(RowSet& rows, const Model& model, const Eigen::VectorXd& q, double margin, double erp,
                       double h, std::int64_t key_base,
                       double max_push_velocity = std::numeric_limits<double>::infinity());
/// One row for the motor. Throws abdyn::InvalidArgument on a coordinate outside v or a negative effort.
void addJointMotorRow(RowSet& rows, const Model& model, const JointMotor& motor, double h, std::int64_t key);
/// A friction row for every velocity coordinate with positive Model::friction.
void addJointFrictionRows(RowSet& rows, const Model& model, double h, std::int64_t key_base);
/// A row for every Model::mimics() coupling.
void addMimicRows(RowSet& rows, const Model& model, const Eigen::VectorXd& q, double erp, double h,
                  std::int64_t key_base);

}  // namespace abdyn
