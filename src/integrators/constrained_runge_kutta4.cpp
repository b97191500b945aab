#include "abdyn/integrators/constrained_runge_kutta4.hpp"

#include <cmath>
#include <string>

#include "constraints/passes.hpp"
#include "integrators/runge_kutta4_stages.hpp"
#include "internal/checks.hpp"

namespace abdyn {

ConstrainedRungeKutta4::ConstrainedRungeKutta4(const Model& model)
    : stages_(model) {}

void ConstrainedRungeKutta4::step(const Model& model, Data& data, ConstrainedDynamicsData& cd,
                                  const ConstraintSet& constraints, Eigen::VectorXd& q, Eigen::VectorXd& v,
                                  const Eigen::VectorXd& tau, double h, const ConstrainedStepSettings& settings) {
  const char* fn = "abdyn::ConstrainedRungeKutta4::step";
  internal::checkIntegratorStep(model, data, stages_.k.size(), q, v, fn);
  internal::checkVector(tau, model.nv(), fn, "tau");
  internal::checkTimeStep(h, fn);
  internal::checkConstrainedSettings(settings.dynamics, fn);
  internal::checkConstrainedWorkspace(cd, model, constraints, fn);
  if (!(settings.position_tolerance > 0.0) || !std::isfinite(settings.position_tolerance)) {
    throw InvalidArgument(std::string(fn) + ": settings.position_tolerance = " + std::to_string(settings.position_tolerance) +
                          " must be positive and finite");
  }
  if (settings.max_projection_iterations < 1) {
    throw InvalidArgument(std::string(fn) + ": settings.max_projection_iterations = " +
                          std::to_string(settings.max_projection_iterations) + " must be at least 1");
  }
  // The stages of RungeKutta4::step with the constrained accelerations.
  internal::rungeKutta4Step(model, stages_, q, v, h,
                            [&](const Eigen::VectorXd& q_s, const Eigen::VectorXd& v_s) -> const Eigen::VectorXd& {
                              return forwardDynamicsConstrained(model, data, cd, constraints, q_s, v_s, tau,
                                                                settings.dynamics);
                            });
  if (!settings.project || !q.allFinite() || !v.allFinite()) return;
  projectPositions(model, data, cd, constraints, q, settings.position_tolerance, settings.max_projection_iterations);
  projectVelocities(model, data, cd, constraints, q, v, settings.dynamics.dynamics);
}

}  // namespace abdyn
