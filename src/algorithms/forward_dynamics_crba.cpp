#include "abdyn/algorithms/forward_dynamics_crba.hpp"

#include "algorithms/passes.hpp"
#include "internal/checks.hpp"

namespace abdyn {

const Eigen::VectorXd& forwardDynamicsCrba(const Model& model, Data& data, const Eigen::VectorXd& q,
                                           const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
                                           const DynamicsOptions& options) {
  internal::checkForwardDynamics(model, data, q, v, tau, nullptr, options, "abdyn::forwardDynamicsCrba");
  return internal::forwardDynamicsCrbaUnchecked(model, data, q, v, tau, nullptr, options);
}

const Eigen::VectorXd& forwardDynamicsCrba(const Model& model, Data& data, const Eigen::VectorXd& q,
                                           const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
                                           const std::vector<Force>& f_ext, const DynamicsOptions& options) {
  internal::checkForwardDynamics(model, data, q, v, tau, &f_ext, options, "abdyn::forwardDynamicsCrba");
  return internal::forwardDynamicsCrbaUnchecked(model, data, q, v, tau, &f_ext, options);
}

namespace internal {

const Eigen::VectorXd& forwardDynamicsCrbaUnchecked(const Model& model, Data& data, const Eigen::VectorXd& q,
                                                    const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
                                                    const std::vector<Force>* f_ext, const DynamicsOptions& options) {
  data.qdd = tau - nonlinearEffectsUnchecked(model, data, q, v, options, f_ext);
  massMatrixAtTransforms(model, data, options);  // RNEA left the joint transforms at q
  factorizeAtMassMatrix(model, data);
  solveWithFactor(model, data, data.qdd);
  return data.qdd;
}

}  // namespace internal

}  // namespace abdyn
