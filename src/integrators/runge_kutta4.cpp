#include "abdyn/integrators/runge_kutta4.hpp"

#include "abdyn/algorithms/aba.hpp"
#include "algorithms/passes.hpp"
#include "integrators/runge_kutta4_stages.hpp"
#include "internal/checks.hpp"

namespace abdyn {

detail::RungeKutta4Stages::RungeKutta4Stages(const Model& model)
    : q_stage(model.nq()),
      v_stage(model.nv()),
      theta(model.nv()),
      k_sum(model.nv()),
      a_sum(model.nv()),
      k(model.nv()),
      a(model.nv()) {}

RungeKutta4::RungeKutta4(const Model& model) : stages_(model) {
  internal::warnUnenforcedMimics(model, "abdyn::RungeKutta4");
}

void RungeKutta4::step(const Model& model, Data& data, Eigen::VectorXd& q, Eigen::VectorXd& v,
                       const Eigen::VectorXd& tau, double h, const DynamicsOptions& options) {
  internal::checkIntegratorStep(model, data, stages_.k.size(), q, v, "abdyn::RungeKutta4::step");
  internal::checkVector(tau, model.nv(), "abdyn::RungeKutta4::step", "tau");
  internal::checkTimeStep(h, "abdyn::RungeKutta4::step");
  internal::checkDynamicsOptions(options, "abdyn::RungeKutta4::step");
  internal::rungeKutta4Step(model, stages_, q, v, h,
                            [&](const Eigen::VectorXd& q_s, const Eigen::VectorXd& v_s) -> const Eigen::VectorXd& {
                              return internal::forwardDynamicsUnchecked(model, data, q_s, v_s, tau, options,
                                                                        "abdyn::RungeKutta4::step");
                            });
}

}  // namespace abdyn
