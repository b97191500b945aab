#include "abdyn/integrators/constrained_step_derivatives.hpp"

#include <string>

#include "abdyn/model/configuration.hpp"
#include "abdyn/model/configuration_derivatives.hpp"
#include "internal/checks.hpp"

namespace abdyn {

ConstrainedStepJacobians::ConstrainedStepJacobians(const Model& model, const ConstraintSet& constraints)
    : derivatives_(model, constraints) {
  const int n = model.nv();
  A.setZero(2 * n, 2 * n);
  B.setZero(2 * n, n);
  for (Eigen::MatrixXd* m : {&Jq_, &Jv_, &Rt_, &Rv_}) m->setZero(n, n);
  for (Eigen::MatrixXd* m : {&d_theta_, &d_v_, &d_q_, &d_a_, &d_k_, &d_ksum_, &d_asum_}) m->setZero(n, 3 * n);
  for (Eigen::VectorXd* x : {&v_stage_, &theta_, &k_, &a_, &k_sum_, &a_sum_}) x->setZero(n);
  q_stage_.setZero(model.nq());
}

// The stages of ConstrainedRungeKutta4::step, differentiated as StepJacobians::rungeKutta4 does
// (step_derivatives.cpp): with d(.) the derivative with respect to (dq, dv, dtau), nv x 3 nv,
//   d theta_s = c_s h d k_{s-1},  d v_s = [0 1 0] + c_s h d a_{s-1},  d q_s = Jq(theta_s) [1 0 0] + Jv(theta_s) d theta_s,
//   d a_s = dqdd/dq d q_s + dqdd/dv d v_s + dqdd/dtau [0 0 1]   (the constrained qdd's derivatives at stage s),
//   d k_s = Rtheta d theta_s + Rv d v_s,
// and the step's end q1 = q (+) (h/6) sum b_s k_s, v1 = v + (h/6) sum b_s a_s.
void ConstrainedStepJacobians::rungeKutta4(const Model& model, Data& data, ConstrainedDynamicsData& cd,
                                           const ConstraintSet& constraints, const Eigen::VectorXd& q,
                                           const Eigen::VectorXd& v, const Eigen::VectorXd& tau, double h,
                                           const ConstrainedDynamicsSettings& settings) {
  const char* fn = "abdyn::ConstrainedStepJacobians::rungeKutta4";
  internal::checkConfiguration(model, q, fn);
  internal::checkVector(v, model.nv(), fn, "v");
  internal::checkVector(tau, model.nv(), fn, "tau");
  internal::checkTimeStep(h, fn);
  if (A.rows() != 2 * model.nv() || derivatives_.dlambda_dq.rows() != constraints.rows()) {
    throw InvalidArgument(std::string(fn) + ": this ConstrainedStepJacobians was built for another model or "
                          "other constraints (nv = " + std::to_string(A.rows() / 2) + ", " +
                          std::to_string(derivatives_.dlambda_dq.rows()) + " constraint rows); the model has nv = " +
                          std::to_string(model.nv()) + " and the constraints " + std::to_string(constraints.rows()) +
                          " rows");
  }
  const int n = model.nv();
  const double c[4] = {0.0, 0.5, 0.5, 1.0};
  const double b[4] = {1.0, 2.0, 2.0, 1.0};
  k_.setZero();
  a_.setZero();
  k_sum_.setZero();
  a_sum_.setZero();
  d_k_.setZero();
  d_a_.setZero();
  d_ksum_.setZero();
  d_asum_.setZero();
  for (int s = 0; s < 4; ++s) {
    theta_ = (c[s] * h) * k_;
    v_stage_ = v + (c[s] * h) * a_;
    d_theta_ = (c[s] * h) * d_k_;
    d_v_ = (c[s] * h) * d_a_;
    d_v_.middleCols(n, n).diagonal().array() += 1.0;
    integrate(model, q, theta_, 1.0, q_stage_);
    integrateJacobians(model, q, theta_, 1.0, Jq_, Jv_);
    d_q_.noalias() = Jv_ * d_theta_;
    d_q_.leftCols(n) += Jq_;
    forwardDynamicsConstrainedDerivatives(model, data, cd, derivatives_, constraints, q_stage_, v_stage_, tau,
                                          settings);
    a_ = cd.qdd;
    d_a_.noalias() = derivatives_.dqdd_dq * d_q_;
    d_a_.noalias() += derivatives_.dqdd_dv * d_v_;
    d_a_.rightCols(n) += derivatives_.dqdd_dtau;
    exponentialCoordinateRate(model, theta_, v_stage_, k_);
    exponentialCoordinateRateJacobians(model, theta_, v_stage_, Rt_, Rv_);
    d_k_.noalias() = Rt_ * d_theta_;
    d_k_.noalias() += Rv_ * d_v_;
    k_sum_ += b[s] * k_;
    a_sum_ += b[s] * a_;
    d_ksum_ += b[s] * d_k_;
    d_asum_ += b[s] * d_a_;
  }
  integrateJacobians(model, q, k_sum_, h / 6.0, Jq_, Jv_);
  A.topRows(n).noalias() = Jv_ * d_ksum_.leftCols(2 * n);
  A.topLeftCorner(n, n) += Jq_;
  B.topRows(n).noalias() = Jv_ * d_ksum_.rightCols(n);
  A.bottomRows(n) = (h / 6.0) * d_asum_.leftCols(2 * n);
  A.bottomRightCorner(n, n).diagonal().array() += 1.0;
  B.bottomRows(n) = (h / 6.0) * d_asum_.rightCols(n);
}

}  // namespace abdyn
