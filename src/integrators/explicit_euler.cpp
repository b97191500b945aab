#include "abdyn/integrators/explicit_euler.hpp"

#include "integrators/euler_step.hpp"
#include "internal/checks.hpp"

namespace abdyn {

ExplicitEuler::ExplicitEuler(const Model& model) : tau_(model.nv()) { internal::warnUnenforcedMimics(model, "abdyn::ExplicitEuler"); }

void ExplicitEuler::step(const Model& model, Data& data, Eigen::VectorXd& q, Eigen::VectorXd& v,
                         const Eigen::VectorXd& tau, double h, const DynamicsOptions& options) {
  internal::eulerStep(internal::EulerVariant::Explicit, model, data, tau_, q, v, tau, h, options,
                      "abdyn::ExplicitEuler::step");
}

void ExplicitEuler::step(const Model& model, Data& data, Eigen::VectorXd& q, Eigen::VectorXd& v,
                         const JointForceFunction& tau, double h, const DynamicsOptions& options) {
  internal::eulerStep(internal::EulerVariant::Explicit, model, data, tau_, q, v, tau, h, options,
                      "abdyn::ExplicitEuler::step");
}

}  // namespace abdyn
