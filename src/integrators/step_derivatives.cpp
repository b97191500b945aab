#include "abdyn/integrators/step_derivatives.hpp"

#include "abdyn/algorithms/aba.hpp"
#include "abdyn/algorithms/derivatives.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/configuration_derivatives.hpp"
#include "internal/checks.hpp"

namespace abdyn {

StepJacobians::StepJacobians(const Model& model) {
  const int n = model.nv();
  A.setZero(2 * n, 2 * n);
  B.setZero(2 * n, n);
  for (Eigen::MatrixXd* m : {&Jq_, &Jv_, &Rt_, &Rv_}) m->setZero(n, n);
  for (Eigen::MatrixXd* m : {&d_theta_, &d_v_, &d_q_, &d_a_, &d_k_, &d_ksum_, &d_asum_}) m->setZero(n, 3 * n);
  for (Eigen::VectorXd* x : {&v_stage_, &theta_, &k_, &a_, &k_sum_, &a_sum_}) x->setZero(n);
  q_stage_.setZero(model.nq());
}

void StepJacobians::check(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                          const Eigen::VectorXd& tau, double h, const char* function) const {
  internal::checkConfiguration(model, q, function);
  internal::checkVector(v, model.nv(), function, "v");
  internal::checkVector(tau, model.nv(), function, "tau");
  internal::checkTimeStep(h, function);
  if (A.rows() != 2 * model.nv()) {
    throw InvalidArgument(std::string(function) + ": this StepJacobians was built for a model with nv = " +
                          std::to_string(A.rows() / 2) + ", the model has nv = " + std::to_string(model.nv()));
  }
}

// q1 = q (+) h v:  dq1 = Jq dq + Jv dv (Jv includes h);  v1 = v + h qdd:  dv1 = dv + h dqdd.
void StepJacobians::explicitEuler(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                  const Eigen::VectorXd& tau, double h, const DynamicsOptions& options) {
  check(model, q, v, tau, h, "abdyn::StepJacobians::explicitEuler");
  const int n = model.nv();
  forwardDynamicsDerivatives(model, data, q, v, tau, options);
  integrateJacobians(model, q, v, h, Jq_, Jv_);
  A.topLeftCorner(n, n) = Jq_;
  A.topRightCorner(n, n) = Jv_;
  A.bottomLeftCorner(n, n) = h * data.dqdd_dq;
  A.bottomRightCorner(n, n) = h * data.dqdd_dv;
  A.bottomRightCorner(n, n).diagonal().array() += 1.0;
  B.topRows(n).setZero();
  B.bottomRows(n) = h * data.dqdd_dtau;
}

// v1 = v + h qdd:  dv1 = dv + h dqdd;  q1 = q (+) h v1:  dq1 = Jq dq + Jv dv1 (Jv at v1, including h).
void StepJacobians::semiImplicitEuler(const Model& model, Data& data, const Eigen::VectorXd& q,
                                      const Eigen::VectorXd& v, const Eigen::VectorXd& tau, double h,
                                      const DynamicsOptions& options) {
  check(model, q, v, tau, h, "abdyn::StepJacobians::semiImplicitEuler");
  const int n = model.nv();
  forwardDynamicsDerivatives(model, data, q, v, tau, options);
  v_stage_ = v + h * data.qdd;
  integrateJacobians(model, q, v_stage_, h, Jq_, Jv_);
  A.bottomLeftCorner(n, n) = h * data.dqdd_dq;
  A.bottomRightCorner(n, n) = h * data.dqdd_dv;
  A.bottomRightCorner(n, n).diagonal().array() += 1.0;
  B.bottomRows(n) = h * data.dqdd_dtau;
  A.topLeftCorner(n, n) = Jq_;
  A.topLeftCorner(n, n).noalias() += Jv_ * A.bottomLeftCorner(n, n);
  A.topRightCorner(n, n).noalias() = Jv_ * A.bottomRightCorner(n, n);
  B.topRows(n).noalias() = Jv_ * B.bottomRows(n);
}

// Stage s of RungeKutta4::step: theta_s = c_s h k_{s-1}, v_s = v + c_s h a_{s-1}, q_s = q (+) theta_s,
// a_s = qdd(q_s, v_s, tau), k_s = rate(theta_s, v_s); the step ends at q (+) (h/6) sum b_s k_s and
// v + (h/6) sum b_s a_s. Each derivative d(.) is taken with respect to (dq, dv, dtau), nv x 3 nv:
//   d theta_s = c_s h d k_{s-1},  d v_s = [0 1 0] + c_s h d a_{s-1},  d q_s = Jq(theta_s) [1 0 0] + Jv(theta_s) d theta_s,
//   d a_s = dqdd/dq d q_s + dqdd/dv d v_s + dqdd/dtau [0 0 1],  d k_s = Rtheta d theta_s + Rv d v_s.
void StepJacobians::rungeKutta4(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                const Eigen::VectorXd& tau, double h, const DynamicsOptions& options) {
  check(model, q, v, tau, h, "abdyn::StepJacobians::rungeKutta4");
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
    forwardDynamicsDerivatives(model, data, q_stage_, v_stage_, tau, options);
    a_ = data.qdd;
    d_a_.noalias() = data.dqdd_dq * d_q_;
    d_a_.noalias() += data.dqdd_dv * d_v_;
    d_a_.rightCols(n) += data.dqdd_dtau;
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
