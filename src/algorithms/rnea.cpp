#include "abdyn/algorithms/rnea.hpp"

#include "algorithms/joint_ops.hpp"
#include "algorithms/passes.hpp"
#include "internal/checks.hpp"
#include "internal/flatten.hpp"

namespace abdyn {
namespace {

// Featherstone's RNEA. v_i, a_i: body velocity and acceleration (a_0 = -gravity, so gravity acts
// through the accelerations); f_i: force transmitted across joint i, all in body-i coordinates.
// `zero_velocity` skips the velocity products (gravityTorques).
ABDYN_FLATTEN void rnea(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd* v, const Eigen::VectorXd* qdd,
          const std::vector<Force>* f_ext, const DynamicsOptions& options) {
  data.v[0] = Motion::Zero();
  data.a_with_gravity[0] = -model.gravity();
  for (int i = 1; i < model.nbodies(); ++i) {
    const Joint& j = model.joint(i);
    const int p = model.parent(i);
    data.X_up[i] = jointTransformTimes(j, q.data() + j.idx_q, model.Xtree(i));
    data.a_with_gravity[i] = data.X_up[i].apply(data.a_with_gravity[p]);
    if (qdd) data.a_with_gravity[i] += internal::jointMotion(model, j, *qdd);
    const RigidBodyInertia& I = model.inertia(i);
    if (v) {
      const Motion vJ = internal::jointMotion(model, j, *v);
      data.v[i] = data.X_up[i].apply(data.v[p]) + vJ;
      data.a_with_gravity[i] += data.v[i].cross(vJ);
      data.f[i] = I * data.a_with_gravity[i] + data.v[i].crossDual(I * data.v[i]);
    } else {
      data.f[i] = I * data.a_with_gravity[i];
    }
    if (f_ext) data.f[i] -= (*f_ext)[i];
  }
  for (int i = model.nbodies() - 1; i >= 1; --i) {
    const Joint& j = model.joint(i);
    internal::projectForce(model, j, data.f[i], data.tau);
    const int p = model.parent(i);
    if (p > 0) data.f[p] += data.X_up[i].applyInverse(data.f[i]);
  }
  if (options.armature && qdd) data.tau += model.armature().cwiseProduct(*qdd);
  if (options.armature && v && model.hasQuaternions()) {  // floating joints' armature products
    for (int i = 1; i < model.nbodies(); ++i) {
      const Joint& j = model.joint(i);
      internal::addFloatingArmatureProduct(model, j, *v, 1.0, data.tau.data() + j.idx_v);
    }
  }
  if (options.damping && v) data.tau += model.damping().cwiseProduct(*v);
  if (options.damping && qdd) data.tau += options.implicit_damping_step * model.damping().cwiseProduct(*qdd);
  if (options.springs && v && model.hasSprings()) {
    for (int i = 1; i < model.nbodies(); ++i) {
      const Joint& j = model.joint(i);
      internal::addJointSpringForce(model, j, q, -1.0, data.tau.data() + j.idx_v);  // overcome the springs
    }
  }
}

void checkInputs(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v, const char* function) {
  internal::checkConfiguration(model, q, function);
  internal::checkVector(v, model.nv(), function, "v");
}

}  // namespace

const Eigen::VectorXd& inverseDynamics(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                       const Eigen::VectorXd& qdd, const DynamicsOptions& options) {
  internal::checkData(model, data, "abdyn::inverseDynamics");
  internal::checkDynamics(model, "abdyn::inverseDynamics");
  checkInputs(model, q, v, "abdyn::inverseDynamics");
  internal::checkVector(qdd, model.nv(), "abdyn::inverseDynamics", "qdd");
  rnea(model, data, q, &v, &qdd, nullptr, options);
  return data.tau;
}

const Eigen::VectorXd& inverseDynamics(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                       const Eigen::VectorXd& qdd, const std::vector<Force>& f_ext,
                                       const DynamicsOptions& options) {
  internal::checkData(model, data, "abdyn::inverseDynamics");
  internal::checkDynamics(model, "abdyn::inverseDynamics");
  checkInputs(model, q, v, "abdyn::inverseDynamics");
  internal::checkVector(qdd, model.nv(), "abdyn::inverseDynamics", "qdd");
  internal::checkForces(model, f_ext, "abdyn::inverseDynamics");
  rnea(model, data, q, &v, &qdd, &f_ext, options);
  return data.tau;
}

const Eigen::VectorXd& nonlinearEffects(const Model& model, Data& data, const Eigen::VectorXd& q,
                                        const Eigen::VectorXd& v, const DynamicsOptions& options) {
  internal::checkData(model, data, "abdyn::nonlinearEffects");
  internal::checkDynamics(model, "abdyn::nonlinearEffects");
  checkInputs(model, q, v, "abdyn::nonlinearEffects");
  return internal::nonlinearEffectsUnchecked(model, data, q, v, options);
}

namespace internal {

const Eigen::VectorXd& nonlinearEffectsUnchecked(const Model& model, Data& data, const Eigen::VectorXd& q,
                                                 const Eigen::VectorXd& v, const DynamicsOptions& options,
                                                 const std::vector<Force>* f_ext) {
  rnea(model, data, q, &v, nullptr, f_ext, options);
  return data.tau;
}

}  // namespace internal

const Eigen::VectorXd& gravityTorques(const Model& model, Data& data, const Eigen::VectorXd& q) {
  internal::checkData(model, data, "abdyn::gravityTorques");
  internal::checkDynamics(model, "abdyn::gravityTorques");
  internal::checkConfiguration(model, q, "abdyn::gravityTorques");
  rnea(model, data, q, nullptr, nullptr, nullptr, DynamicsOptions{});
  return data.tau;
}

}  // namespace abdyn
