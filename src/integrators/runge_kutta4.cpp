#include "abdyn/integrators/runge_kutta4.hpp"

#include "abdyn/algorithms/aba.hpp"
#include "abdyn/model/configuration.hpp"
#include "internal/checks.hpp"

namespace abdyn {

RungeKutta4::RungeKutta4(const Model& model)
    : q_stage_(model.nq()),
      v_stage_(model.nv()),
      theta_(model.nv()),
      k_sum_(model.nv()),
      a_sum_(model.nv()),
      k_(model.nv()),
      a_(model.nv()) {
  internal::warnUnenforcedMimics(model, "abdyn::RungeKutta4");
}

void RungeKutta4::step(const Model& model, Data& data, Eigen::VectorXd& q, Eigen::VectorXd& v,
                       const Eigen::VectorXd& tau, double h, const DynamicsOptions& options) {
  internal::checkIntegratorStep(model, data, k_.size(), q, v, "abdyn::RungeKutta4::step");
  internal::checkVector(tau, model.nv(), "abdyn::RungeKutta4::step", "tau");
  internal::checkTimeStep(h, "abdyn::RungeKutta4::step");
  // Butcher tableau of the classical method: stage s starts at c_s = (0, 1/2, 1/2, 1) along the
  // previous stage's rates and contributes with weight b_s = (1, 2, 2, 1) / 6.
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
    a_ = forwardDynamics(model, data, q_stage_, v_stage_, tau, options);
    exponentialCoordinateRate(model, theta_, v_stage_, k_);
    k_sum_ += b[s] * k_;
    a_sum_ += b[s] * a_;
  }
  integrate(model, q, k_sum_, h / 6.0, q);
  v += (h / 6.0) * a_sum_;
}

}  // namespace abdyn
