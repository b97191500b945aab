#include "abdyn/algorithms/center_of_mass.hpp"

#include "abdyn/error.hpp"
#include "algorithms/passes.hpp"
#include "internal/checks.hpp"

namespace abdyn {
namespace {

double checkedTotalMass(const Model& model, const char* function) {
  const double m = model.totalMass();
  if (!(m > 0.0)) throw InvalidArgument(std::string(function) + ": model '" + model.name() + "' has no mass");
  return m;
}

// Sum over bodies of m_i c_i in world coordinates (needs positions).
Vector3 firstMomentInWorld(const Model& model, const Data& data) {
  Vector3 h = Vector3::Zero();
  for (int i = 1; i < model.nbodies(); ++i) {
    const RigidBodyInertia& I = model.inertia(i);
    h += I.mass() * data.X_body_world[i].applyInverseToPoint(I.com());
  }
  return h;
}

}  // namespace

Vector3 centerOfMass(const Model& model, Data& data, const Eigen::VectorXd& q) {
  internal::checkData(model, data, "abdyn::centerOfMass");
  internal::checkDynamics(model, "abdyn::centerOfMass");
  const double m = checkedTotalMass(model, "abdyn::centerOfMass");
  forwardKinematics(model, data, q);
  return firstMomentInWorld(model, data) / m;
}

Vector3 centerOfMassVelocity(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  internal::checkData(model, data, "abdyn::centerOfMassVelocity");
  internal::checkDynamics(model, "abdyn::centerOfMassVelocity");
  const double m = checkedTotalMass(model, "abdyn::centerOfMassVelocity");
  forwardKinematics(model, data, q, v);
  Vector3 p = Vector3::Zero();  // total linear momentum, world coordinates
  for (int i = 1; i < model.nbodies(); ++i) {
    const RigidBodyInertia& I = model.inertia(i);
    const Motion& vi = data.v[i];
    p += I.mass() * (data.X_body_world[i].E().transpose() * (vi.linear() + vi.angular().cross(I.com())));
  }
  return p / m;
}

const Matrix3X& centerOfMassJacobian(const Model& model, Data& data, const Eigen::VectorXd& q) {
  internal::checkData(model, data, "abdyn::centerOfMassJacobian");
  internal::checkDynamics(model, "abdyn::centerOfMassJacobian");
  const double m = checkedTotalMass(model, "abdyn::centerOfMassJacobian");
  forwardKinematics(model, data, q);
  // Column k (a coordinate of joint j) moves j's whole subtree rigidly with the world-frame motion
  // S_k^0 = (w, v0), so it moves the subtree's centre of mass at v0 + w x c_sub and the model's at
  // (m_sub / m) (v0 + w x c_sub). Accumulate each subtree's mass and first moment leaves first.
  const int n = model.nbodies();
  std::vector<double>& subtree_mass = data.subtree_mass;
  std::vector<Vector3>& subtree_moment = data.subtree_moment;
  for (int i = 0; i < n; ++i) {
    subtree_mass[i] = model.inertia(i).mass();
    subtree_moment[i] = i > 0 ? Vector3(model.inertia(i).mass() * data.X_body_world[i].applyInverseToPoint(model.inertia(i).com()))
                              : Vector3::Zero();
  }
  for (int i = n - 1; i > 0; --i) {
    subtree_mass[model.parent(i)] += subtree_mass[i];
    subtree_moment[model.parent(i)] += subtree_moment[i];
  }
  for (int i = 1; i < n; ++i) {
    const Joint& j = model.joint(i);
    for (int k = j.idx_v; k < j.idx_v + j.nv; ++k) {
      const Motion s = internal::worldMotionColumn(model, data, k);
      data.J_com.col(k) = (subtree_mass[i] * s.linear() + s.angular().cross(subtree_moment[i])) / m;
    }
  }
  return data.J_com;
}

double kineticEnergy(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  internal::checkData(model, data, "abdyn::kineticEnergy");
  internal::checkDynamics(model, "abdyn::kineticEnergy");
  forwardKinematics(model, data, q, v);
  double T = 0.0;
  for (int i = 1; i < model.nbodies(); ++i) T += model.inertia(i).kineticEnergy(data.v[i]);
  return T;
}

double potentialEnergy(const Model& model, Data& data, const Eigen::VectorXd& q) {
  internal::checkData(model, data, "abdyn::potentialEnergy");
  internal::checkDynamics(model, "abdyn::potentialEnergy");
  forwardKinematics(model, data, q);
  return -model.gravity().linear().dot(firstMomentInWorld(model, data));
}

double mechanicalEnergy(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  internal::checkData(model, data, "abdyn::mechanicalEnergy");
  internal::checkDynamics(model, "abdyn::mechanicalEnergy");
  internal::checkConfiguration(model, q, "abdyn::mechanicalEnergy");
  internal::checkVector(v, model.nv(), "abdyn::mechanicalEnergy", "v");
  return internal::mechanicalEnergyUnchecked(model, data, q, v);
}

namespace internal {

double mechanicalEnergyUnchecked(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  forwardKinematicsUnchecked(model, data, q, v);
  double T = 0.0;
  for (int i = 1; i < model.nbodies(); ++i) T += model.inertia(i).kineticEnergy(data.v[i]);
  return T - model.gravity().linear().dot(firstMomentInWorld(model, data));
}

}  // namespace internal

Force spatialMomentum(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  internal::checkData(model, data, "abdyn::spatialMomentum");
  internal::checkDynamics(model, "abdyn::spatialMomentum");
  forwardKinematics(model, data, q, v);
  Force h;
  for (int i = 1; i < model.nbodies(); ++i) h += data.X_body_world[i].applyInverse(model.inertia(i) * data.v[i]);
  return h;
}

}  // namespace abdyn
