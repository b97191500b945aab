#include "abdyn/integrators/semi_implicit_euler.hpp"

#include "integrators/euler_step.hpp"
#include "internal/checks.hpp"

namespace abdyn {

SemiImplicitEuler::SemiImplicitEuler(const Model& model) : tau_(model.nv()) { internal::warnUnenforcedMimics(model, "abdyn::SemiImplicitEuler"); }

void SemiImplicitEuler::step(const Model& model, Data& data, Eigen::VectorXd& q, Eigen::VectorXd& v,
                             const Eigen::VectorXd& tau, double h, const DynamicsOptions& options) {
  internal::eulerStep(internal::EulerVariant::SemiImplicit, model, data, tau_, q, v, tau, h, options,
                      "abdyn::SemiImplicitEuler::step");
}

void SemiImplicitEuler::step(const Model& model, Data& data, Eigen::VectorXd& q, Eigen::VectorXd& v,
                             const JointForceFunction& tau, double h, const DynamicsOptions& options) {
  internal::eulerStep(internal::EulerVariant::SemiImplicit, model, data, tau_, q, v, tau, h, options,
                      "abdyn::SemiImplicitEuler::step");
}

}  // namespace abdyn
