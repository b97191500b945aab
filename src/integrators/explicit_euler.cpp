#include "abdyn/integrators/explicit_euler.hpp"

#include "abdyn/algorithms/aba.hpp"
#include "abdyn/model/configuration.hpp"
#include "internal/checks.hpp"

namespace abdyn {

ExplicitEuler::ExplicitEuler(const Model& model) : tau_(model.nv()) { internal::warnUnenforcedMimics(model, "abdyn::ExplicitEuler"); }

void ExplicitEuler::step(const Model& model, Data& data, Eigen::VectorXd& q, Eigen::VectorXd& v,
                         const Eigen::VectorXd& tau, double h, const DynamicsOptions& options) {
  internal::checkIntegratorStep(model, data, tau_.size(), q, v, "abdyn::ExplicitEuler::step");
  internal::checkTimeStep(h, "abdyn::ExplicitEuler::step");
  const Eigen::VectorXd& a = forwardDynamics(model, data, q, v, tau, options);
  integrate(model, q, v, h, q);
  v += h * a;
}

void ExplicitEuler::step(const Model& model, Data& data, Eigen::VectorXd& q, Eigen::VectorXd& v,
                         const JointForceFunction& tau, double h, const DynamicsOptions& options) {
  internal::checkIntegratorStep(model, data, tau_.size(), q, v, "abdyn::ExplicitEuler::step");
  tau(q, v, tau_);
  step(model, data, q, v, tau_, h, options);
}

}  // namespace abdyn
