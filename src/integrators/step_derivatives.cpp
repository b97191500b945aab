#include "abdyn/integrators/step_derivatives.hpp"

#include "abdyn/algorithms/aba.hpp"
#include "abdyn/algorithms/derivatives.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/configuration_derivatives.hpp"
#include "integrators/runge_kutta4_stages.hpp"
#include "internal/checks.hpp"

namespace abdyn {

detail::StepJacobianWorkspace::StepJacobianWorkspace(const Model& model) {
  const int n = model.nv();
  for (Eigen::MatrixXd* m : {&Jq, &Jv, &Rt, &Rv}) m->setZero(n, n);
  for (Eigen::MatrixXd* m : {&d_theta, &d_v, &d_q, &d_a, &d_k, &d_ksum, &d_asum}) m->setZero(n, 3 * n);
  for (Eigen::VectorXd* x : {&v_stage, &theta, &k, &a, &k_sum, &a_sum}) x->setZero(n);
  q_stage.setZero(model.nq());
}

StepJacobians::StepJacobians(const Model& model) : w_(model) {
  const int n = model.nv();
  A.setZero(2 * n, 2 * n);
  B.setZero(2 * n, n);
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
  integrateJacobians(model, q, v, h, w_.Jq, w_.Jv);
  A.topLeftCorner(n, n) = w_.Jq;
  A.topRightCorner(n, n) = w_.Jv;
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
  w_.v_stage = v + h * data.qdd;
  integrateJacobians(model, q, w_.v_stage, h, w_.Jq, w_.Jv);
  A.bottomLeftCorner(n, n) = h * data.dqdd_dq;
  A.bottomRightCorner(n, n) = h * data.dqdd_dv;
  A.bottomRightCorner(n, n).diagonal().array() += 1.0;
  B.bottomRows(n) = h * data.dqdd_dtau;
  A.topLeftCorner(n, n) = w_.Jq;
  A.topLeftCorner(n, n).noalias() += w_.Jv * A.bottomLeftCorner(n, n);
  A.topRightCorner(n, n).noalias() = w_.Jv * A.bottomRightCorner(n, n);
  B.topRows(n).noalias() = w_.Jv * B.bottomRows(n);
}

// RungeKutta4::step's stages differentiated (src/internal/runge_kutta4_stages.hpp) with ABA's derivatives.
void StepJacobians::rungeKutta4(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                const Eigen::VectorXd& tau, double h, const DynamicsOptions& options) {
  check(model, q, v, tau, h, "abdyn::StepJacobians::rungeKutta4");
  internal::rungeKutta4StepJacobians(model, w_, q, v, h, A, B, [&](const Eigen::VectorXd& q_s, const Eigen::VectorXd& v_s) {
    forwardDynamicsDerivatives(model, data, q_s, v_s, tau, options);
    return internal::AccelerationDerivatives{data.qdd, data.dqdd_dq, data.dqdd_dv, data.dqdd_dtau};
  });
}

}  // namespace abdyn
