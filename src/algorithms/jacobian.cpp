#include "abdyn/algorithms/jacobian.hpp"

#include "algorithms/passes.hpp"
#include "internal/checks.hpp"
#include "internal/flatten.hpp"

namespace abdyn {
namespace {

// Fills data.J with the world-frame spatial Jacobian of `body`: the world columns of the coordinates on
// the path to the root; zero elsewhere.
void worldJacobian(const Model& model, Data& data, int body) {
  data.J.setZero();
  for (int j = body; j > 0; j = model.parent(j)) {
    const Joint& joint = model.joint(j);
    for (int k = joint.idx_v; k < joint.idx_v + joint.nv; ++k) data.J.col(k) = internal::worldMotionColumn(model, data, k).vector();
  }
}

Matrix3 frameRotationInWorld(const Model& model, const Data& data, int frame) {
  return frameTransform(model, data, frame).E().transpose();
}

// Rotates the angular and linear halves of every column by R (column by column: no temporaries).
void rotateColumns(const Matrix3& R, Matrix6X& block) {
  for (Eigen::Index k = 0; k < block.cols(); ++k) {
    block.col(k).head<3>() = R * Vector3(block.col(k).head<3>());
    block.col(k).tail<3>() = R * Vector3(block.col(k).tail<3>());
  }
}

// Re-expresses the columns of a world-frame block (in place) per rf.
void worldToReference(const Model& model, const Data& data, int frame, ReferenceFrame rf, Matrix6X& block) {
  if (rf == ReferenceFrame::World) return;
  const Plx X_F_0 = frameTransform(model, data, frame);
  for (Eigen::Index k = 0; k < block.cols(); ++k) {
    if (block.col(k).isZero(0.0)) continue;
    block.col(k) = X_F_0.apply(Motion(Vector6(block.col(k)))).vector();
  }
  if (rf == ReferenceFrame::LocalWorldAligned) rotateColumns(X_F_0.E().transpose(), block);
}

void checkFrame(const Model& model, int frame, const char* function) {
  if (frame < 0 || frame >= model.nframes()) {
    throw InvalidArgument(std::string(function) + ": frame index " + std::to_string(frame) + " out of range [0, " +
                          std::to_string(model.nframes()) + ")");
  }
}

}  // namespace

ABDYN_FLATTEN const Matrix6X& jointJacobians(const Model& model, Data& data) {
  internal::checkData(model, data, "abdyn::jointJacobians");
  for (int k = 0; k < model.nv(); ++k) data.S_world.col(k) = internal::worldMotionColumn(model, data, k).vector();
  data.S_world_stamp = data.X_body_world_stamp;
  return data.S_world;
}

const Matrix6X& frameJacobian(const Model& model, Data& data, const Eigen::VectorXd& q, int frame, ReferenceFrame rf) {
  internal::checkData(model, data, "abdyn::frameJacobian");
  checkFrame(model, frame, "abdyn::frameJacobian");
  forwardKinematics(model, data, q);
  worldJacobian(model, data, model.frame(frame).body);
  worldToReference(model, data, frame, rf, data.J);
  return data.J;
}

const Matrix6X& frameJacobianTimeVariation(const Model& model, Data& data, const Eigen::VectorXd& q,
                                           const Eigen::VectorXd& v, int frame, ReferenceFrame rf) {
  internal::checkData(model, data, "abdyn::frameJacobianTimeVariation");
  checkFrame(model, frame, "abdyn::frameJacobianTimeVariation");
  forwardKinematics(model, data, q, v);
  const int body = model.frame(frame).body;
  worldJacobian(model, data, body);
  // World frame: d/dt (X_0_j S_k) = v_j^0 x (X_0_j S_k), with v_j^0 body j's velocity in world coordinates.
  data.dJ.setZero();
  for (int j = body; j > 0; j = model.parent(j)) {
    const Motion v_world = data.X_body_world[j].applyInverse(data.v[j]);
    const Joint& joint = model.joint(j);
    for (int k = joint.idx_v; k < joint.idx_v + joint.nv; ++k) {
      data.dJ.col(k) = v_world.cross(Motion(Vector6(data.J.col(k)))).vector();
    }
  }
  if (rf == ReferenceFrame::World) return data.dJ;

  // Local: J_F = X_F_0 J_0, and d/dt X_F_0 = -crm(v_F) X_F_0, so dJ_F = X_F_0 dJ_0 - v_F x J_F.
  const Frame& F = model.frame(frame);
  const Motion v_F = F.X_frame_body.apply(data.v[body]);
  worldToReference(model, data, frame, ReferenceFrame::Local, data.J);
  worldToReference(model, data, frame, ReferenceFrame::Local, data.dJ);
  for (int j = body; j > 0; j = model.parent(j)) {
    const Joint& joint = model.joint(j);
    for (int k = joint.idx_v; k < joint.idx_v + joint.nv; ++k) {
      data.dJ.col(k) -= v_F.cross(Motion(Vector6(data.J.col(k)))).vector();
    }
  }
  if (rf == ReferenceFrame::Local) return data.dJ;

  // Local world aligned: J = diag(R, R) J_F with dR/dt = R wx, so dJ = diag(R, R) (diag(wx, wx) J_F + dJ_F).
  const Vector3& w = v_F.angular();
  for (Eigen::Index k = 0; k < data.dJ.cols(); ++k) {
    data.dJ.col(k).head<3>() += w.cross(Vector3(data.J.col(k).head<3>()));
    data.dJ.col(k).tail<3>() += w.cross(Vector3(data.J.col(k).tail<3>()));
  }
  const Matrix3 R = frameRotationInWorld(model, data, frame);
  rotateColumns(R, data.dJ);
  rotateColumns(R, data.J);
  return data.dJ;
}

Motion frameJacobianTimeVariationTimesV(const Model& model, Data& data, const Eigen::VectorXd& q,
                                        const Eigen::VectorXd& v, int frame, ReferenceFrame rf) {
  internal::checkData(model, data, "abdyn::frameJacobianTimeVariationTimesV");
  checkFrame(model, frame, "abdyn::frameJacobianTimeVariationTimesV");
  data.zero_qdd.setZero(model.nv());
  forwardKinematics(model, data, q, v, data.zero_qdd);
  if (rf != ReferenceFrame::LocalWorldAligned) return frameAcceleration(model, data, frame, rf);
  const Matrix3 R = frameRotationInWorld(model, data, frame);
  const Motion a_F = frameAcceleration(model, data, frame, ReferenceFrame::Local);
  return Motion(R * a_F.angular(), frameClassicalAcceleration(model, data, frame));
}

}  // namespace abdyn
