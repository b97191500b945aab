#include "abdyn/integrators/constrained_step_derivatives.hpp"

#include <string>

#include "integrators/runge_kutta4_stages.hpp"
#include "internal/checks.hpp"

namespace abdyn {

ConstrainedStepJacobians::ConstrainedStepJacobians(const Model& model, const ConstraintSet& constraints)
    : derivatives_(model, constraints), w_(model) {
  const int n = model.nv();
  A.setZero(2 * n, 2 * n);
  B.setZero(2 * n, n);
}

// The stages of ConstrainedRungeKutta4::step, differentiated as StepJacobians::rungeKutta4 does
// (src/internal/runge_kutta4_stages.hpp), with the constrained qdd's derivatives at each stage.
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
  internal::rungeKutta4StepJacobians(model, w_, q, v, h, A, B, [&](const Eigen::VectorXd& q_s, const Eigen::VectorXd& v_s) {
    forwardDynamicsConstrainedDerivatives(model, data, cd, derivatives_, constraints, q_s, v_s, tau, settings);
    return internal::AccelerationDerivatives{cd.qdd, derivatives_.dqdd_dq, derivatives_.dqdd_dv,
                                             derivatives_.dqdd_dtau};
  });
}

}  // namespace abdyn
