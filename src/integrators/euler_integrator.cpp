#include "abdyn/integrators/euler_integrator.hpp"

#include "algorithms/passes.hpp"
#include "internal/checks.hpp"
#include "model/passes.hpp"

namespace abdyn {
namespace {

// The names the three instances go by, in their messages (indexed by EulerScheme).
constexpr const char* kEulerClassNames[] = {"abdyn::ExplicitEuler", "abdyn::SemiImplicitEuler",
                                            "abdyn::ImplicitDampingEuler"};
constexpr const char* kEulerStepNames[] = {"abdyn::ExplicitEuler::step", "abdyn::SemiImplicitEuler::step",
                                 "abdyn::ImplicitDampingEuler::step"};

}  // namespace

template <EulerScheme Scheme>
EulerIntegrator<Scheme>::EulerIntegrator(const Model& model) : tau_(model.nv()) {
  // The implicit-damping step is the Simulator's and the loop path's as well, which enforce the mimics.
  if (Scheme != EulerScheme::ImplicitDamping) {
    internal::warnUnenforcedMimics(model, kEulerClassNames[static_cast<int>(Scheme)]);
  }
}

template <EulerScheme Scheme>
void EulerIntegrator<Scheme>::step(const Model& model, Data& data, Eigen::VectorXd& q, Eigen::VectorXd& v,
                         const Eigen::VectorXd& tau, double h, const DynamicsOptions& options) {
  const char* fn = kEulerStepNames[static_cast<int>(Scheme)];
  internal::checkIntegratorStep(model, data, tau_.size(), q, v, fn);
  internal::checkVector(tau, model.nv(), fn, "tau");
  stepChecked(model, data, q, v, tau, h, options);
}

template <EulerScheme Scheme>
void EulerIntegrator<Scheme>::step(const Model& model, Data& data, Eigen::VectorXd& q, Eigen::VectorXd& v,
                         const JointForceFunction& tau, double h, const DynamicsOptions& options) {
  const char* fn = kEulerStepNames[static_cast<int>(Scheme)];
  internal::checkIntegratorStep(model, data, tau_.size(), q, v, fn);
  tau(q, v, tau_);
  internal::checkVector(tau_, model.nv(), fn, "tau");
  stepChecked(model, data, q, v, tau_, h, options);
}

// Behind the door: q, v and tau checked; h and the options here, then only unchecked passes.
template <EulerScheme Scheme>
void EulerIntegrator<Scheme>::stepChecked(const Model& model, Data& data, Eigen::VectorXd& q, Eigen::VectorXd& v,
                                const Eigen::VectorXd& tau, double h, const DynamicsOptions& options) {
  const char* fn = kEulerStepNames[static_cast<int>(Scheme)];
  internal::checkTimeStep(h, fn);
  DynamicsOptions step_options = options;
  if (Scheme == EulerScheme::ImplicitDamping) step_options.implicit_damping_step = h;  // M + h D
  internal::checkDynamicsOptions(step_options, fn);
  const Eigen::VectorXd& a = internal::forwardDynamicsUnchecked(model, data, q, v, tau, step_options, fn);
  if (Scheme != EulerScheme::Explicit) v += h * a;
  internal::integrateUnchecked(model, q, v, h, q);
  if (Scheme == EulerScheme::Explicit) v += h * a;
}

template class EulerIntegrator<EulerScheme::Explicit>;
template class EulerIntegrator<EulerScheme::SemiImplicit>;
template class EulerIntegrator<EulerScheme::ImplicitDamping>;

}  // namespace abdyn
