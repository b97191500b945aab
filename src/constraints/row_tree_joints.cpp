#include "abdyn/constraints/row_tree_joints.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "abdyn/error.hpp"

namespace abdyn {

void addJointLimitRows(RowSet& rows, const Model& model, const Eigen::VectorXd& q, double margin, double erp,
                       double h, std::int64_t key_base, double max_push_velocity) {
  for (int i = 1; i < model.nbodies(); ++i) {
    const Joint& j = model.joint(i);
    if (j.nq != 1 || j.nv != 1) continue;
    const double lower = model.lowerPositionLimit()[j.idx_q], upper = model.upperPositionLimit()[j.idx_q];
    const double position = q[j.idx_q];
    for (int side = 0; side < 2; ++side) {
      const double bound = side == 0 ? lower : upper;
      if (!std::isfinite(bound)) continue;
      const double sign = side == 0 ? 1.0 : -1.0;
      const double gap = sign * (position - bound);
      if (gap >= margin) continue;
      ConstraintRow& row = rows.add();
      row.J[j.idx_v] = sign;
      row.error = gap;
      row.unilateral = true;
      row.lo = 0.0;
      row.target = std::min(unilateralTarget(gap, erp, h), max_push_velocity);
      row.key = key_base + 2 * j.idx_v + side;
    }
  }
}

void addJointMotorRow(RowSet& rows, const Model& model, const JointMotor& motor, double h, std::int64_t key) {
  if (motor.coordinate < 0 || motor.coordinate >= model.nv()) {
    throw InvalidArgument("abdyn::addJointMotorRow: coordinate " + std::to_string(motor.coordinate) +
                          " is outside v (nv = " + std::to_string(model.nv()) + ")");
  }
  if (!(motor.max_effort >= 0.0) || !std::isfinite(motor.target_velocity)) {
    throw InvalidArgument("abdyn::addJointMotorRow: motor on coordinate " + std::to_string(motor.coordinate) +
                          " needs max_effort >= 0 and a finite target velocity");
  }
  ConstraintRow& row = rows.add();
  row.J[motor.coordinate] = 1.0;
  row.target = motor.target_velocity;
  row.hi = motor.max_effort * h;
  row.lo = -row.hi;
  row.key = key;
}

void addJointFrictionRows(RowSet& rows, const Model& model, double h, std::int64_t key_base) {
  for (int k = 0; k < model.nv(); ++k) {
    const double friction = model.friction()[k];
    if (!(friction > 0.0)) continue;
    ConstraintRow& row = rows.add();
    row.J[k] = 1.0;
    row.hi = friction * h;
    row.lo = -row.hi;
    row.key = key_base + k;
  }
}

void addMimicRows(RowSet& rows, const Model& model, const Eigen::VectorXd& q, double erp, double h,
                  std::int64_t key_base) {
  std::int64_t key = key_base;
  for (const MimicCoupling& m : model.mimics()) {
    const Joint& follower = model.joint(m.follower);
    const Joint& leader = model.joint(m.leader);
    ConstraintRow& row = rows.add();
    row.J[follower.idx_v] += 1.0;
    row.J[leader.idx_v] -= m.multiplier;
    row.error = q[follower.idx_q] - m.multiplier * q[leader.idx_q] - m.offset;
    row.target = -(erp / h) * row.error;
    row.key = key++;
  }
}

}  // namespace abdyn
