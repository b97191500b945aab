#include "abdyn/integrators/constrained_implicit_damping_euler.hpp"

#include "constraints/passes.hpp"
#include "integrators/constrained_step.hpp"
#include "model/passes.hpp"

namespace abdyn {

ConstrainedImplicitDampingEuler::ConstrainedImplicitDampingEuler(const Model& model) : nv_(model.nv()) {}

void ConstrainedImplicitDampingEuler::step(const Model& model, Data& data, ConstrainedDynamicsData& cd,
                                           const ConstraintSet& constraints, Eigen::VectorXd& q, Eigen::VectorXd& v,
                                           const Eigen::VectorXd& tau, double h, const ConstrainedStepSettings& settings) {
  internal::checkConstrainedStep(model, data, nv_, cd, constraints, q, v, tau, h, settings,
                                 "abdyn::ConstrainedImplicitDampingEuler::step");
  ConstrainedDynamicsSettings implicit = settings.dynamics;
  implicit.dynamics.implicit_damping_step = h;  // M + h D in the constrained system
  v += h * internal::forwardDynamicsConstrainedUnchecked(model, data, cd, constraints, q, v, tau, implicit);
  internal::integrateUnchecked(model, q, v, h, q);
  internal::postStabilise(model, data, cd, constraints, q, v, settings);
}

}  // namespace abdyn
