#include "abdyn/constraints/row_joints.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "abdyn/error.hpp"
#include "abdyn/spatial/quaternion.hpp"
#include "abdyn/spatial/rotation.hpp"
#include "internal/checks.hpp"
#include "constraints/orthonormal_complement.hpp"

namespace abdyn {
namespace {

// The joint frame on `body` as X_frame_0 (world to frame coordinates).
Plx frameInWorld(const Data& data, int body, const Plx& X_frame_body) {
  return body == 0 ? X_frame_body : X_frame_body * data.X_body_world[body];
}

void addLimitRow(RowSet& rows, const Model& model, const Data& data, const RowJoint& joint, const Vector3& axis,
                 double gap, double erp, double h, std::int64_t key) {
  ConstraintRow& row = addAngularRow(rows, model, data, joint.body_a, joint.body_b, axis);
  row.lo = 0.0;
  row.unilateral = true;
  row.error = gap;
  row.target = unilateralTarget(gap, erp, h);
  row.key = key;
}

// Swing-cone and twist limits (see the header), keys key_base .. key_base + 2.
void addLimitRows(RowSet& rows, const Model& model, const Data& data, const RowJoint& joint, const Matrix3& R_a,
                  const Matrix3& R_b, double erp, double h, std::int64_t key_base) {
  const Vector3 z_a = R_a.col(2), z_b = R_b.col(2);
  if (std::isfinite(joint.swing_limit)) {
    const Vector3 normal = z_b.cross(z_a);
    const double theta = std::atan2(normal.norm(), z_a.dot(z_b));
    const double gap = joint.swing_limit - theta;
    // Near theta = 0 the opening direction is undefined, but then the cone is far from its bound.
    if (gap < joint.limit_margin && normal.norm() > 1e-12) {
      addLimitRow(rows, model, data, joint, -normal.normalized(), gap, erp, h, key_base);
    }
  }
  if (std::isfinite(joint.twist_lower) || std::isfinite(joint.twist_upper)) {
    const Quaternion q = Quaternion::fromRotationMatrix(R_a.transpose() * R_b);
    const double psi = 2.0 * std::atan2(q.z(), q.w());
    const Vector3 mean = z_a + z_b;
    if (mean.norm() < 1e-9) return;  // B's axis points opposite A's: twist is undefined
    const Vector3 a = mean.normalized();
    const double lower_gap = psi - joint.twist_lower, upper_gap = joint.twist_upper - psi;
    if (lower_gap < joint.limit_margin) addLimitRow(rows, model, data, joint, -a, lower_gap, erp, h, key_base + 1);
    if (upper_gap < joint.limit_margin) addLimitRow(rows, model, data, joint, a, upper_gap, erp, h, key_base + 2);
  }
}

}  // namespace

void addRowJoint(RowSet& rows, const Model& model, const Data& data, const RowJoint& joint, double erp, double cfm,
                 double h, std::int64_t key_base) {
  internal::checkData(model, data, "abdyn::addRowJoint");
  internal::checkBody(model, joint.body_a, "abdyn::addRowJoint", "joint.body_a");
  internal::checkBody(model, joint.body_b, "abdyn::addRowJoint", "joint.body_b");
  internal::checkWorldColumns(data, "abdyn::addRowJoint");
  const Plx Xa = frameInWorld(data, joint.body_a, joint.X_frame_a);
  const Plx Xb = frameInWorld(data, joint.body_b, joint.X_frame_b);
  const Matrix3 R_a = Xa.E().transpose(), R_b = Xb.E().transpose();  // frame axes in world coordinates
  const Vector3& p_a = Xa.r();
  const Vector3& p_b = Xb.r();
  // The joint's rows, built together (addPairRows): the wrench of each (addLinearRow's and
  // addAngularRow's) and its position error C, in key order.
  Force wrench[kMaxPairRows];
  double C[kMaxPairRows] = {};
  int count = 0;
  const auto linear = [&](const Vector3& n, double error) {
    wrench[count] = Force(p_a.cross(n), n);
    C[count++] = error;
  };
  const auto angular = [&](const Vector3& a, double error) {
    wrench[count] = Force(a, Vector3::Zero());
    C[count++] = error;
  };
  const auto coincide = [&] {
    for (int d = 0; d < 3; ++d) linear(Vector3::Unit(d), Vector3::Unit(d).dot(p_a - p_b));
  };
  // The three angular rows of a slider or fixed joint, about the world axes.
  const auto alignRotation = [&] {
    const Vector3 rotation_error = logSO3(R_a * R_b.transpose());
    for (int d = 0; d < 3; ++d) angular(Vector3::Unit(d), rotation_error[d]);
  };
  switch (joint.type) {
    case RowJointType::Ball:
      coincide();
      break;
    case RowJointType::Hinge: {
      coincide();
      const Vector3 misalignment = R_b.col(2).cross(R_a.col(2));
      angular(R_a.col(0), R_a.col(0).dot(misalignment));
      angular(R_a.col(1), R_a.col(1).dot(misalignment));
      break;
    }
    case RowJointType::Slider:
      linear(R_a.col(0), R_a.col(0).dot(p_a - p_b));
      linear(R_a.col(1), R_a.col(1).dot(p_a - p_b));
      alignRotation();
      break;
    case RowJointType::Fixed:
      coincide();
      alignRotation();
      break;
    case RowJointType::Distance: {
      const Vector3 gap = p_a - p_b;
      const double distance = gap.norm();
      if (!(distance > 1e-12)) {
        throw InvalidArgument("abdyn::addRowJoint: distance joint between bodies " + std::to_string(joint.body_a) +
                              " and " + std::to_string(joint.body_b) + " has coinciding anchors: no direction to keep");
      }
      linear(gap / distance, distance - joint.length);
      break;
    }
  }
  const int first = addPairRows(rows, model, data, joint.body_a, joint.body_b, wrench, count);
  for (int r = 0; r < count; ++r) {
    ConstraintRow& row = rows[first + r];
    row.error = C[r];
    row.target = -(erp / h) * C[r];
    row.cfm = cfm;
    row.key = key_base + r;
  }
  addLimitRows(rows, model, data, joint, R_a, R_b, erp, h, key_base + 6);
}

RowJoint rowJointOf(const LoopClosure& loop) {
  // The closure's rows, in Fa coordinates: [n_ang; n_lin] each, either angular or linear.
  std::vector<Vector3> angular, linear;
  for (int k = 0; k < loop.rows(); ++k) {
    const Eigen::Matrix<double, 1, 6> d = loop.directions.row(k);
    (d.head<3>().squaredNorm() > 0.0 ? angular : linear).push_back(d.head<3>().norm() > 0.0 ? Vector3(d.head<3>())
                                                                                        : Vector3(d.tail<3>()));
  }
  RowJoint joint;
  Vector3 axis = Vector3::UnitZ();  // in Fa
  if (angular.size() == 3 && linear.size() == 3) {
    joint.type = RowJointType::Fixed;
  } else if (angular.empty() && linear.size() == 3) {
    joint.type = RowJointType::Ball;
  } else if (angular.size() == 2 && linear.size() == 3) {
    joint.type = RowJointType::Hinge;
    axis = angular[0].cross(angular[1]).normalized();
  } else if (angular.size() == 3 && linear.size() == 2) {
    joint.type = RowJointType::Slider;
    axis = linear[0].cross(linear[1]).normalized();
  } else {
    throw InvalidArgument("abdyn::rowJointOf: loop closure '" + loop.name + "' has " + std::to_string(angular.size()) +
                          " angular and " + std::to_string(linear.size()) +
                          " linear rows: not a fixed, spherical, revolute or prismatic closure");
  }
  // The joint frame: Fa turned so that its z is the axis (rows.hpp's hinge and slider keep z_A).
  Vector3 t1, t2;
  internal::orthonormalComplement(axis, t1, t2);
  Matrix3 R_F_joint;
  R_F_joint << t1, t2, axis;
  joint.body_a = loop.body_a;
  joint.body_b = loop.body_b;
  joint.X_frame_a = Plx::fromPose(loop.R_a * R_F_joint, loop.p_a);
  joint.X_frame_b = Plx::fromPose(loop.R_b * R_F_joint, loop.p_b);
  return joint;
}

}  // namespace abdyn
