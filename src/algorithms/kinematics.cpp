#include "abdyn/algorithms/kinematics.hpp"

#include "algorithms/joint_ops.hpp"
#include "algorithms/passes.hpp"
#include "internal/checks.hpp"
#include "internal/flatten.hpp"

namespace abdyn {
namespace {

ABDYN_FLATTEN void positions(const Model& model, Data& data, const Eigen::VectorXd& q) {
  for (int i = 1; i < model.nbodies(); ++i) {
    const Joint& j = model.joint(i);
    data.X_up[i] = jointTransformTimes(j, q.data() + j.idx_q, model.Xtree(i));
    const int p = model.parent(i);
    data.X_body_world[i] = p > 0 ? data.X_up[i] * data.X_body_world[p] : data.X_up[i];
  }
  ++data.X_body_world_stamp;
}

Motion jointVelocity(const Model& model, int i, const Eigen::VectorXd& v) {
  return internal::jointMotion(model, model.joint(i), v);
}

// Expresses a body-i motion m (body coordinates) at frame F per rf.
Motion expressAt(const Model& model, const Data& data, int frame, const Motion& m_body, ReferenceFrame rf) {
  const Frame& F = model.frame(frame);
  switch (rf) {
    case ReferenceFrame::Local:
      return F.X_frame_body.apply(m_body);
    case ReferenceFrame::World:
      return data.X_body_world[F.body].applyInverse(m_body);
    case ReferenceFrame::LocalWorldAligned: {
      const Motion m_local = F.X_frame_body.apply(m_body);
      const Matrix3 R_0_F = (F.X_frame_body * data.X_body_world[F.body]).E().transpose();
      return Motion(R_0_F * m_local.angular(), R_0_F * m_local.linear());
    }
  }
  return m_body;
}

// The functions that take Data without its Model check the body against Data's own size.
void checkDataBody(const Data& data, int body, const char* function) {
  if (body < 0 || static_cast<std::size_t>(body) >= data.X_body_world.size()) {
    throw InvalidArgument(std::string(function) + ": argument 'body' is " + std::to_string(body) + ", data has bodies 0 to " +
                          std::to_string(static_cast<long long>(data.X_body_world.size()) - 1));
  }
}

}  // namespace

void forwardKinematics(const Model& model, Data& data, const Eigen::VectorXd& q) {
  internal::checkData(model, data, "abdyn::forwardKinematics");
  internal::checkConfiguration(model, q, "abdyn::forwardKinematics");
  positions(model, data, q);
}

void forwardKinematics(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  internal::checkData(model, data, "abdyn::forwardKinematics");
  internal::checkConfiguration(model, q, "abdyn::forwardKinematics");
  internal::checkVector(v, model.nv(), "abdyn::forwardKinematics", "v");
  internal::forwardKinematicsUnchecked(model, data, q, v);
}

void forwardKinematics(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                       const Eigen::VectorXd& qdd) {
  internal::checkData(model, data, "abdyn::forwardKinematics");
  internal::checkConfiguration(model, q, "abdyn::forwardKinematics");
  internal::checkVector(v, model.nv(), "abdyn::forwardKinematics", "v");
  internal::checkVector(qdd, model.nv(), "abdyn::forwardKinematics", "qdd");
  internal::forwardKinematicsUnchecked(model, data, q, v, qdd);
}

namespace internal {

void forwardKinematicsUnchecked(const Model& model, Data& data, const Eigen::VectorXd& q) {
  positions(model, data, q);
}

void forwardKinematicsUnchecked(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  positions(model, data, q);
  data.v[0] = Motion::Zero();
  for (int i = 1; i < model.nbodies(); ++i) {
    data.v[i] = data.X_up[i].apply(data.v[model.parent(i)]) + jointVelocity(model, i, v);
  }
}

void forwardKinematicsUnchecked(const Model& model, Data& data, const Eigen::VectorXd& q,
                                const Eigen::VectorXd& v, const Eigen::VectorXd& qdd) {
  positions(model, data, q);
  data.v[0] = Motion::Zero();
  data.a[0] = Motion::Zero();
  for (int i = 1; i < model.nbodies(); ++i) {
    const int p = model.parent(i);
    const Motion vJ = jointVelocity(model, i, v);
    data.v[i] = data.X_up[i].apply(data.v[p]) + vJ;
    // a_i = X a_p + S qdd + v_i x vJ (S is constant in body coordinates, so the only velocity product is v x vJ).
    data.a[i] = data.X_up[i].apply(data.a[p]) + jointVelocity(model, i, qdd) + data.v[i].cross(vJ);
  }
}

void worldTransformsAtTransforms(const Model& model, Data& data) {
  for (int i = 1; i < model.nbodies(); ++i) {
    const int p = model.parent(i);
    data.X_body_world[i] = p > 0 ? data.X_up[i] * data.X_body_world[p] : data.X_up[i];
  }
  ++data.X_body_world_stamp;
}

}  // namespace internal

Plx frameTransform(const Model& model, const Data& data, int frame) {
  internal::checkData(model, data, "abdyn::frameTransform");
  const Frame& F = model.frame(frame);
  return F.X_frame_body * data.X_body_world[F.body];
}

Eigen::Isometry3d framePose(const Model& model, const Data& data, int frame) {
  internal::checkData(model, data, "abdyn::framePose");
  return frameTransform(model, data, frame).toPose();
}

Eigen::Isometry3d bodyPose(const Data& data, int body) {
  checkDataBody(data, body, "abdyn::bodyPose");
  return data.X_body_world[body].toPose();
}

Motion frameVelocity(const Model& model, const Data& data, int frame, ReferenceFrame rf) {
  internal::checkData(model, data, "abdyn::frameVelocity");
  return expressAt(model, data, frame, data.v[model.frame(frame).body], rf);
}

Motion frameAcceleration(const Model& model, const Data& data, int frame, ReferenceFrame rf) {
  internal::checkData(model, data, "abdyn::frameAcceleration");
  return expressAt(model, data, frame, data.a[model.frame(frame).body], rf);
}

Vector3 frameClassicalAcceleration(const Model& model, const Data& data, int frame) {
  internal::checkData(model, data, "abdyn::frameClassicalAcceleration");
  const Frame& F = model.frame(frame);
  const Motion v = F.X_frame_body.apply(data.v[F.body]);
  const Motion a = F.X_frame_body.apply(data.a[F.body]);
  // The origin's classical acceleration is the spatial one plus w x v (RBDA sec. 2.11).
  const Matrix3 R_0_F = frameTransform(model, data, frame).E().transpose();
  return R_0_F * (a.linear() + v.angular().cross(v.linear()));
}

Vector3 pointClassicalAcceleration(const Data& data, int body, const Vector3& point_in_body) {
  checkDataBody(data, body, "abdyn::pointClassicalAcceleration");
  const Plx X_P_B = Plx::translation(point_in_body);
  const Motion v = X_P_B.apply(data.v[body]);
  const Motion a = X_P_B.apply(data.a[body]);
  return data.X_body_world[body].E().transpose() * (a.linear() + v.angular().cross(v.linear()));
}

}  // namespace abdyn
