#include "abdyn/integrators/implicit_midpoint.hpp"

#include <string>

#include "abdyn/algorithms/aba.hpp"
#include "abdyn/model/configuration.hpp"
#include "internal/checks.hpp"

namespace abdyn {

ImplicitMidpoint::ImplicitMidpoint(const Model& model, const ImplicitMidpointSettings& settings)
    : settings_(settings),
      dv_(model.nv()),
      dv_trial_(model.nv()),
      r_(model.nv()),
      r_trial_(model.nv()),
      v_mid_(model.nv()),
      q_mid_(model.nq()),
      tau_(model.nv()),
      delta_(model.nv()),
      jacobian_(model.nv(), model.nv()),
      lu_(model.nv()) {
  if (!(settings.tolerance > 0.0) || settings.max_iterations < 1 || !(settings.difference_step > 0.0)) {
    throw InvalidArgument("abdyn::ImplicitMidpoint: settings need tolerance > 0, max_iterations >= 1 and difference_step > 0");
  }
  internal::warnUnenforcedMimics(model, "abdyn::ImplicitMidpoint");
}

template <class TauAt>
void ImplicitMidpoint::residual(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                const Eigen::VectorXd& dv, const TauAt& tau_at, double h,
                                const DynamicsOptions& options, Eigen::VectorXd& r) {
  v_mid_ = v + 0.5 * dv;
  integrate(model, q, v_mid_, 0.5 * h, q_mid_);
  r = dv - h * forwardDynamics(model, data, q_mid_, v_mid_, tau_at(q_mid_, v_mid_), options);
}

template <class TauAt>
void ImplicitMidpoint::advance(const Model& model, Data& data, Eigen::VectorXd& q, Eigen::VectorXd& v,
                               const TauAt& tau_at, double h, const DynamicsOptions& options) {
  internal::checkTimeStep(h, "abdyn::ImplicitMidpoint::step");
  dv_ = h * forwardDynamics(model, data, q, v, tau_at(q, v), options);
  const double v_scale = v.cwiseAbs().maxCoeff();
  const int n = static_cast<int>(dv_.size());
  for (int it = 0;; ++it) {
    residual(model, data, q, v, dv_, tau_at, h, options, r_);
    const double dv_scale = dv_.cwiseAbs().maxCoeff();
    if (r_.cwiseAbs().maxCoeff() <= settings_.tolerance * (1.0 + v_scale + dv_scale)) {
      last_iterations_ = it;
      integrate(model, q, v_mid_, h, q);
      v += dv_;
      return;
    }
    if (it == settings_.max_iterations) break;
    // Column k of the Jacobian dr/d(dv) by a forward difference in dv_k.
    for (int k = 0; k < n; ++k) {
      const double eps = settings_.difference_step * (1.0 + std::abs(dv_[k]));
      dv_trial_ = dv_;
      dv_trial_[k] += eps;
      residual(model, data, q, v, dv_trial_, tau_at, h, options, r_trial_);
      jacobian_.col(k) = (r_trial_ - r_) / eps;
    }
    lu_.compute(jacobian_);
    delta_ = lu_.solve(r_);
    if (!delta_.allFinite()) break;
    dv_ -= delta_;
  }
  throw Error("abdyn::ImplicitMidpoint::step: Newton's method did not converge in " +
              std::to_string(settings_.max_iterations) + " iterations at h = " + std::to_string(h) +
              " (residual " + std::to_string(r_.cwiseAbs().maxCoeff()) + "); reduce h or use sub-steps");
}

void ImplicitMidpoint::step(const Model& model, Data& data, Eigen::VectorXd& q, Eigen::VectorXd& v,
                            const Eigen::VectorXd& tau, double h, const DynamicsOptions& options) {
  internal::checkIntegratorStep(model, data, dv_.size(), q, v, "abdyn::ImplicitMidpoint::step");
  internal::checkVector(tau, model.nv(), "abdyn::ImplicitMidpoint::step", "tau");
  advance(model, data, q, v, [&tau](const Eigen::VectorXd&, const Eigen::VectorXd&) -> const Eigen::VectorXd& { return tau; },
          h, options);
}

void ImplicitMidpoint::step(const Model& model, Data& data, Eigen::VectorXd& q, Eigen::VectorXd& v,
                            const JointForceFunction& tau, double h, const DynamicsOptions& options) {
  internal::checkIntegratorStep(model, data, dv_.size(), q, v, "abdyn::ImplicitMidpoint::step");
  advance(model, data, q, v,
          [this, &tau](const Eigen::VectorXd& q_at, const Eigen::VectorXd& v_at) -> const Eigen::VectorXd& {
            tau(q_at, v_at, tau_);
            return tau_;
          },
          h, options);
}

}  // namespace abdyn
