#include "abdyn/integrators/constrained_runge_kutta4.hpp"

#include <cmath>
#include <string>

#include "abdyn/model/configuration.hpp"
#include "internal/checks.hpp"
#include "internal/constraint_solve.hpp"

namespace abdyn {

ConstrainedRungeKutta4::ConstrainedRungeKutta4(const Model& model)
    : q_stage_(model.nq()),
      v_stage_(model.nv()),
      theta_(model.nv()),
      k_sum_(model.nv()),
      a_sum_(model.nv()),
      k_(model.nv()),
      a_(model.nv()) {}

void ConstrainedRungeKutta4::step(const Model& model, Data& data, ConstrainedDynamicsData& cd,
                                  const ConstraintSet& constraints, Eigen::VectorXd& q, Eigen::VectorXd& v,
                                  const Eigen::VectorXd& tau, double h, const ConstrainedStepSettings& settings) {
  const char* fn = "abdyn::ConstrainedRungeKutta4::step";
  internal::checkIntegratorStep(model, data, k_.size(), q, v, fn);
  internal::checkVector(tau, model.nv(), fn, "tau");
  internal::checkTimeStep(h, fn);
  internal::checkConstrainedSettings(settings.dynamics, fn);
  if (cd.qdd.size() != model.nv() || cd.lambda.size() != constraints.rows()) {
    throw InvalidArgument(std::string(fn) + ": 'cd' was built for other constraints or another model");
  }
  if (!(settings.position_tolerance > 0.0) || !std::isfinite(settings.position_tolerance)) {
    throw InvalidArgument(std::string(fn) + ": settings.position_tolerance = " + std::to_string(settings.position_tolerance) +
                          " must be positive and finite");
  }
  if (settings.max_projection_iterations < 1) {
    throw InvalidArgument(std::string(fn) + ": settings.max_projection_iterations = " +
                          std::to_string(settings.max_projection_iterations) + " must be at least 1");
  }
  // The stages of RungeKutta4::step (runge_kutta4.cpp) with the constrained accelerations: stage s starts
  // at c_s = (0, 1/2, 1/2, 1) along the previous stage's rates and contributes with weight b_s = (1, 2, 2, 1)/6.
  // q and v are written only after the four stages, so that a stage that throws leaves them as they were.
  const double c[4] = {0.0, 0.5, 0.5, 1.0};
  const double b[4] = {1.0, 2.0, 2.0, 1.0};
  k_sum_.setZero();
  a_sum_.setZero();
  k_.setZero();
  a_.setZero();
  for (int s = 0; s < 4; ++s) {
    theta_ = (c[s] * h) * k_;
    v_stage_ = v + (c[s] * h) * a_;
    integrate(model, q, theta_, 1.0, q_stage_);
    a_ = forwardDynamicsConstrained(model, data, cd, constraints, q_stage_, v_stage_, tau, settings.dynamics);
    exponentialCoordinateRate(model, theta_, v_stage_, k_);
    k_sum_ += b[s] * k_;
    a_sum_ += b[s] * a_;
  }
  integrate(model, q, k_sum_, h / 6.0, q);
  v += (h / 6.0) * a_sum_;
  if (!settings.project || !q.allFinite() || !v.allFinite()) return;
  projectPositions(model, data, cd, constraints, q, settings.position_tolerance, settings.max_projection_iterations);
  projectVelocities(model, data, cd, constraints, q, v, settings.dynamics.dynamics);
}

}  // namespace abdyn
