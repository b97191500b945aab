#include "abdyn/constraints/row_joints.hpp"

#include <string>

#include "abdyn/error.hpp"
#include "abdyn/spatial/rotation.hpp"

namespace abdyn {
namespace {

// The joint frame on `body` as X_frame_0 (world to frame coordinates).
Plx frameInWorld(const Data& data, int body, const Plx& X_frame_body) {
  return body == 0 ? X_frame_body : X_frame_body * data.X_world[body];
}

}  // namespace

void addRowJoint(RowSet& rows, const Model& model, const Data& data, const RowJoint& joint, double erp, double cfm,
                 double h, std::int64_t key_base) {
  for (int body : {joint.body_a, joint.body_b}) {
    if (body < 0 || body >= model.nbodies()) {
      throw InvalidArgument("abdyn::addRowJoint: body " + std::to_string(body) + " is not in model '" + model.name() + "'");
    }
  }
  const Plx Xa = frameInWorld(data, joint.body_a, joint.X_frame_a);
  const Plx Xb = frameInWorld(data, joint.body_b, joint.X_frame_b);
  const Matrix3 R_a = Xa.E().transpose(), R_b = Xb.E().transpose();  // frame axes in world coordinates
  const Vector3& p_a = Xa.r();
  const Vector3& p_b = Xb.r();
  std::int64_t key = key_base;
  const auto finish = [&](ConstraintRow& row, double C) {
    row.error = C;
    row.target = -(erp / h) * C;
    row.cfm = cfm;
    row.key = key++;
  };
  const auto linear = [&](const Vector3& n) {
    finish(addLinearRow(rows, model, data, joint.body_a, joint.body_b, p_a, n), n.dot(p_a - p_b));
  };
  const Vector3 rotation_error = logSO3(R_a * R_b.transpose());
  const auto angular = [&](const Vector3& a, double C) {
    finish(addAngularRow(rows, model, data, joint.body_a, joint.body_b, a), C);
  };
  switch (joint.type) {
    case RowJointType::Ball:
      for (int d = 0; d < 3; ++d) linear(Vector3::Unit(d));
      break;
    case RowJointType::Hinge: {
      for (int d = 0; d < 3; ++d) linear(Vector3::Unit(d));
      const Vector3 misalignment = R_b.col(2).cross(R_a.col(2));
      angular(R_a.col(0), R_a.col(0).dot(misalignment));
      angular(R_a.col(1), R_a.col(1).dot(misalignment));
      break;
    }
    case RowJointType::Slider:
      linear(R_a.col(0));
      linear(R_a.col(1));
      for (int d = 0; d < 3; ++d) angular(Vector3::Unit(d), rotation_error[d]);
      break;
    case RowJointType::Fixed:
      for (int d = 0; d < 3; ++d) linear(Vector3::Unit(d));
      for (int d = 0; d < 3; ++d) angular(Vector3::Unit(d), rotation_error[d]);
      break;
    case RowJointType::Distance: {
      const Vector3 gap = p_a - p_b;
      const double distance = gap.norm();
      if (!(distance > 1e-12)) {
        throw InvalidArgument("abdyn::addRowJoint: distance joint between bodies " + std::to_string(joint.body_a) +
                              " and " + std::to_string(joint.body_b) + " has coinciding anchors: no direction to keep");
      }
      const Vector3 u = gap / distance;
      finish(addLinearRow(rows, model, data, joint.body_a, joint.body_b, p_a, u), distance - joint.length);
      break;
    }
  }
}

}  // namespace abdyn
