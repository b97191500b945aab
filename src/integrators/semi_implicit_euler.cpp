#include "abdyn/integrators/semi_implicit_euler.hpp"

#include "abdyn/algorithms/aba.hpp"
#include "abdyn/model/configuration.hpp"
#include "internal/checks.hpp"

namespace abdyn {

SemiImplicitEuler::SemiImplicitEuler(const Model& model) : tau_(model.nv()) { internal::warnUnenforcedMimics(model, "abdyn::SemiImplicitEuler"); }

void SemiImplicitEuler::step(const Model& model, Data& data, Eigen::VectorXd& q, Eigen::VectorXd& v,
                             const Eigen::VectorXd& tau, double h, const DynamicsOptions& options) {
  internal::checkIntegratorStep(model, data, tau_.size(), q, v, "abdyn::SemiImplicitEuler::step");
  internal::checkTimeStep(h, "abdyn::SemiImplicitEuler::step");
  v += h * forwardDynamics(model, data, q, v, tau, options);
  integrate(model, q, v, h, q);
}

void SemiImplicitEuler::step(const Model& model, Data& data, Eigen::VectorXd& q, Eigen::VectorXd& v,
                             const JointForceFunction& tau, double h, const DynamicsOptions& options) {
  internal::checkIntegratorStep(model, data, tau_.size(), q, v, "abdyn::SemiImplicitEuler::step");
  tau(q, v, tau_);
  step(model, data, q, v, tau_, h, options);
}

}  // namespace abdyn
