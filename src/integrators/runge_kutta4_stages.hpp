#pragma once
// The stage loop of the Lie-group Runge-Kutta method (Runge-Kutta-Munthe-Kaas), written once for the
// integrators that differ only in where the accelerations come from: RungeKutta4 (ABA) and
// ConstrainedRungeKutta4 (forwardDynamicsConstrained), and their step Jacobians. The acceleration is a
// callable, a template parameter rather than a std::function, so that a step allocates nothing.
//
// Butcher tableau of the classical method: stage s starts at c_s = (0, 1/2, 1/2, 1) along the previous
// stage's rates and contributes with weight b_s = (1, 2, 2, 1) / 6:
//   theta_s = c_s h k_{s-1},  v_s = v + c_s h a_{s-1},  q_s = q (+) theta_s,
//   a_s = qdd(q_s, v_s),      k_s = rate(theta_s, v_s)   (exponentialCoordinateRate),
// and the step ends at q1 = q (+) (h/6) sum b_s k_s, v1 = v + (h/6) sum b_s a_s.

#include <Eigen/Core>

#include "abdyn/integrators/runge_kutta4.hpp"
#include "abdyn/integrators/step_derivatives.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/configuration_derivatives.hpp"
#include "model/passes.hpp"

namespace abdyn::internal {

inline constexpr double kRungeKutta4C[4] = {0.0, 0.5, 0.5, 1.0};
inline constexpr double kRungeKutta4B[4] = {1.0, 2.0, 2.0, 1.0};

/// One step behind the caller's door (q and v checked): acceleration(q_s, v_s) returns a_s (a reference
/// that stays valid until the next call).
/// q and v are written only after the four stages, so that a stage that throws leaves them as they were.
template <class Acceleration>
void rungeKutta4Step(const Model& model, detail::RungeKutta4Stages& w, Eigen::VectorXd& q, Eigen::VectorXd& v,
                     double h, Acceleration&& acceleration) {
  w.k_sum.setZero();
  w.a_sum.setZero();
  w.k.setZero();
  w.a.setZero();
  for (int s = 0; s < 4; ++s) {
    w.theta = (kRungeKutta4C[s] * h) * w.k;
    w.v_stage = v + (kRungeKutta4C[s] * h) * w.a;
    internal::integrateUnchecked(model, q, w.theta, 1.0, w.q_stage);
    w.a = acceleration(w.q_stage, w.v_stage);
    exponentialCoordinateRate(model, w.theta, w.v_stage, w.k);
    w.k_sum += kRungeKutta4B[s] * w.k;
    w.a_sum += kRungeKutta4B[s] * w.a;
  }
  internal::integrateUnchecked(model, q, w.k_sum, h / 6.0, q);
  v += (h / 6.0) * w.a_sum;
}

/// qdd at a stage and its derivatives with respect to (q, v, tau), each nv x nv, tangent coordinates.
struct AccelerationDerivatives {
  const Eigen::VectorXd& qdd;
  const Eigen::MatrixXd& dqdd_dq;
  const Eigen::MatrixXd& dqdd_dv;
  const Eigen::MatrixXd& dqdd_dtau;
};

/// A = d (q1, v1) / d (q, v) and B = d (q1, v1) / d tau of rungeKutta4Step, with
/// derivatives(q_s, v_s) returning the AccelerationDerivatives of stage s. Each derivative d(.) is taken
/// with respect to (dq, dv, dtau), nv x 3 nv:
///   d theta_s = c_s h d k_{s-1},  d v_s = [0 1 0] + c_s h d a_{s-1},
///   d q_s = Jq(theta_s) [1 0 0] + Jv(theta_s) d theta_s,
///   d a_s = dqdd/dq d q_s + dqdd/dv d v_s + dqdd/dtau [0 0 1],  d k_s = Rtheta d theta_s + Rv d v_s.
template <class Derivatives>
void rungeKutta4StepJacobians(const Model& model, detail::StepJacobianWorkspace& w, const Eigen::VectorXd& q,
                              const Eigen::VectorXd& v, double h, Eigen::MatrixXd& A, Eigen::MatrixXd& B,
                              Derivatives&& derivatives) {
  const int n = model.nv();
  w.k.setZero();
  w.a.setZero();
  w.k_sum.setZero();
  w.a_sum.setZero();
  w.d_k.setZero();
  w.d_a.setZero();
  w.d_ksum.setZero();
  w.d_asum.setZero();
  for (int s = 0; s < 4; ++s) {
    const double ch = kRungeKutta4C[s] * h;
    w.theta = ch * w.k;
    w.v_stage = v + ch * w.a;
    w.d_theta = ch * w.d_k;
    w.d_v = ch * w.d_a;
    w.d_v.middleCols(n, n).diagonal().array() += 1.0;
    integrate(model, q, w.theta, 1.0, w.q_stage);
    integrateJacobians(model, q, w.theta, 1.0, w.Jq, w.Jv);
    w.d_q.noalias() = w.Jv * w.d_theta;
    w.d_q.leftCols(n) += w.Jq;
    const AccelerationDerivatives stage = derivatives(w.q_stage, w.v_stage);
    w.a = stage.qdd;
    w.d_a.noalias() = stage.dqdd_dq * w.d_q;
    w.d_a.noalias() += stage.dqdd_dv * w.d_v;
    w.d_a.rightCols(n) += stage.dqdd_dtau;
    exponentialCoordinateRate(model, w.theta, w.v_stage, w.k);
    exponentialCoordinateRateJacobians(model, w.theta, w.v_stage, w.Rt, w.Rv);
    w.d_k.noalias() = w.Rt * w.d_theta;
    w.d_k.noalias() += w.Rv * w.d_v;
    w.k_sum += kRungeKutta4B[s] * w.k;
    w.a_sum += kRungeKutta4B[s] * w.a;
    w.d_ksum += kRungeKutta4B[s] * w.d_k;
    w.d_asum += kRungeKutta4B[s] * w.d_a;
  }
  integrateJacobians(model, q, w.k_sum, h / 6.0, w.Jq, w.Jv);
  A.topRows(n).noalias() = w.Jv * w.d_ksum.leftCols(2 * n);
  A.topLeftCorner(n, n) += w.Jq;
  B.topRows(n).noalias() = w.Jv * w.d_ksum.rightCols(n);
  A.bottomRows(n) = (h / 6.0) * w.d_asum.leftCols(2 * n);
  A.bottomRightCorner(n, n).diagonal().array() += 1.0;
  B.bottomRows(n) = (h / 6.0) * w.d_asum.rightCols(n);
}

}  // namespace abdyn::internal
