#include "abdyn/integrators/implicit_damping_euler.hpp"

#include "abdyn/algorithms/aba.hpp"
#include "abdyn/model/configuration.hpp"
#include "internal/checks.hpp"

namespace abdyn {

ImplicitDampingEuler::ImplicitDampingEuler(const Model& model) : tau_(model.nv()) {}

void ImplicitDampingEuler::step(const Model& model, Data& data, Eigen::VectorXd& q, Eigen::VectorXd& v,
                                const Eigen::VectorXd& tau, double h, const DynamicsOptions& options) {
  internal::checkTimeStep(h, "abdyn::ImplicitDampingEuler::step");
  DynamicsOptions implicit = options;
  implicit.implicit_damping_step = h;
  v += h * forwardDynamics(model, data, q, v, tau, implicit);  // dv = h (M + h D)^-1 (f - D v)
  integrate(model, q, v, h, q);
}

void ImplicitDampingEuler::step(const Model& model, Data& data, Eigen::VectorXd& q, Eigen::VectorXd& v,
                                const JointForceFunction& tau, double h, const DynamicsOptions& options) {
  tau(q, v, tau_);
  step(model, data, q, v, tau_, h, options);
}

}  // namespace abdyn
