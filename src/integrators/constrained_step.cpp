#include "integrators/constrained_step.hpp"

#include <cmath>
#include <string>

#include "constraints/passes.hpp"
#include "internal/checks.hpp"

namespace abdyn::internal {

void checkConstrainedStep(const Model& model, const Data& data, Eigen::Index workspace_nv, const ConstrainedDynamicsData& cd,
                          const ConstraintSet& constraints, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                          const Eigen::VectorXd& tau, double h, const ConstrainedStepSettings& settings,
                          const char* function) {
  checkIntegratorStep(model, data, workspace_nv, q, v, function);
  checkVector(tau, model.nv(), function, "tau");
  checkTimeStep(h, function);
  checkConstrainedSettings(settings.dynamics, function);
  checkConstrainedWorkspace(cd, model, constraints, function);
  if (!(settings.position_tolerance > 0.0) || !std::isfinite(settings.position_tolerance)) {
    throw InvalidArgument(std::string(function) + ": settings.position_tolerance = " +
                          std::to_string(settings.position_tolerance) + " must be positive and finite");
  }
  if (settings.max_projection_iterations < 1) {
    throw InvalidArgument(std::string(function) + ": settings.max_projection_iterations = " +
                          std::to_string(settings.max_projection_iterations) + " must be at least 1");
  }
}

void postStabilise(const Model& model, Data& data, ConstrainedDynamicsData& cd, const ConstraintSet& constraints,
                   Eigen::VectorXd& q, Eigen::VectorXd& v, const ConstrainedStepSettings& settings) {
  if (!settings.project || !q.allFinite() || !v.allFinite()) return;
  projectPositions(model, data, cd, constraints, q, settings.position_tolerance, settings.max_projection_iterations);
  projectVelocities(model, data, cd, constraints, q, v, settings.dynamics.dynamics);
}

}  // namespace abdyn::internal
