#include "abdyn/integrators/constrained_runge_kutta4.hpp"

#include "constraints/passes.hpp"
#include "integrators/constrained_step.hpp"
#include "integrators/runge_kutta4_stages.hpp"

namespace abdyn {

ConstrainedRungeKutta4::ConstrainedRungeKutta4(const Model& model)
    : stages_(model) {}

void ConstrainedRungeKutta4::step(const Model& model, Data& data, ConstrainedDynamicsData& cd,
                                  const ConstraintSet& constraints, Eigen::VectorXd& q, Eigen::VectorXd& v,
                                  const Eigen::VectorXd& tau, double h, const ConstrainedStepSettings& settings) {
  internal::checkConstrainedStep(model, data, stages_.k.size(), cd, constraints, q, v, tau, h, settings,
                                 "abdyn::ConstrainedRungeKutta4::step");
  // The stages of RungeKutta4::step with the constrained accelerations.
  internal::rungeKutta4Step(model, stages_, q, v, h,
                            [&](const Eigen::VectorXd& q_s, const Eigen::VectorXd& v_s) -> const Eigen::VectorXd& {
                              return internal::forwardDynamicsConstrainedUnchecked(model, data, cd, constraints, q_s,
                                                                                   v_s, tau, settings.dynamics);
                            });
  internal::postStabilise(model, data, cd, constraints, q, v, settings);
}

}  // namespace abdyn
