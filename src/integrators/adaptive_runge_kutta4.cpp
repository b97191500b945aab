#include "abdyn/integrators/adaptive_runge_kutta4.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <spdlog/fmt/fmt.h>

#include "abdyn/error.hpp"
#include "internal/checks.hpp"

namespace abdyn {

namespace {
void checkSetting(double x, const char* name) {
  if (!(x > 0.0) || !std::isfinite(x)) {
    throw InvalidArgument(std::string("abdyn::AdaptiveRungeKutta4: setting '") + name +
                          "' must be positive and finite, got " + std::to_string(x));
  }
}
}  // namespace

AdaptiveRungeKutta4::AdaptiveRungeKutta4(const Model& model, const AdaptiveRungeKutta4Settings& settings)
    : settings_(settings),
      rk_(model),
      q_whole_(model.nq()),
      v_whole_(model.nv()),
      q_halves_(model.nq()),
      v_halves_(model.nv()) {
  checkSetting(settings.relative_tolerance, "relative_tolerance");
  checkSetting(settings.absolute_tolerance, "absolute_tolerance");
  checkSetting(settings.min_step_fraction, "min_step_fraction");
  if (settings.max_substeps < 1) {
    throw InvalidArgument("abdyn::AdaptiveRungeKutta4: setting 'max_substeps' must be at least 1, got " +
                          std::to_string(settings.max_substeps));
  }
}

// max over coordinates of |x2 - x1| / 15 / (atol + rtol max(|x1|, |x2|)); infinite if either is not finite.
double AdaptiveRungeKutta4::errorRatio() const {
  if (!q_halves_.allFinite() || !v_halves_.allFinite() || !q_whole_.allFinite() || !v_whole_.allFinite()) {
    return std::numeric_limits<double>::infinity();
  }
  const auto ratio = [&](const Eigen::VectorXd& x1, const Eigen::VectorXd& x2) {
    double worst = 0.0;
    for (Eigen::Index i = 0; i < x1.size(); ++i) {
      const double scale = settings_.absolute_tolerance +
                           settings_.relative_tolerance * std::max(std::abs(x1[i]), std::abs(x2[i]));
      worst = std::max(worst, std::abs(x2[i] - x1[i]) / (15.0 * scale));
    }
    return worst;
  };
  return std::max(ratio(q_whole_, q_halves_), ratio(v_whole_, v_halves_));
}

void AdaptiveRungeKutta4::step(const Model& model, Data& data, Eigen::VectorXd& q, Eigen::VectorXd& v,
                               const Eigen::VectorXd& tau, double h, const DynamicsOptions& options) {
  internal::checkIntegratorStep(model, data, v_whole_.size(), q, v, "abdyn::AdaptiveRungeKutta4::step");
  internal::checkVector(tau, model.nv(), "abdyn::AdaptiveRungeKutta4::step", "tau");
  internal::checkTimeStep(h, "abdyn::AdaptiveRungeKutta4::step");
  accepted_ = rejected_ = 0;
  smallest_ = h;
  const double min_step = settings_.min_step_fraction * h;
  double done = 0.0;
  double s = next_ > 0.0 ? std::min(next_, h) : h;
  std::string failure;  // the last trial's error, if one threw
  while (done < h) {
    if (accepted_ + rejected_ == settings_.max_substeps) {
      throw Error(fmt::format("abdyn::AdaptiveRungeKutta4::step: {} sub-steps (max_substeps) took it only {:g} s into "
                              "the step of {:g} s, the last of them {:g} s: the motion is stiff (stiff joint damping "
                              "needs an implicit step, such as ImplicitDampingEuler)",
                              settings_.max_substeps, done, h, s));
    }
    // The last sub-step ends exactly at h; a remainder below rounding joins the one before it.
    const double planned = s;
    const bool last = done + s >= h * (1.0 - 1e-12);
    if (last) s = h - done;
    q_whole_ = q;
    v_whole_ = v;
    q_halves_ = q;
    v_halves_ = v;
    double ratio = 0.0;
    try {
      rk_.step(model, data, q_whole_, v_whole_, tau, s, options);
      rk_.step(model, data, q_halves_, v_halves_, tau, 0.5 * s, options);
      if (q_halves_.allFinite() && v_halves_.allFinite()) rk_.step(model, data, q_halves_, v_halves_, tau, 0.5 * s, options);
      ratio = errorRatio();
    } catch (const Error& e) {
      // A stage of a too long trial reached a state without finite dynamics: reject it like any other.
      failure = e.what();
      ratio = std::numeric_limits<double>::infinity();
    }
    // Proposed sub-step from the error's fifth-root law, with a safety factor and bounded change.
    const double factor = ratio == 0.0 ? 4.0 : std::clamp(0.9 * std::pow(ratio, -0.2), 0.2, 4.0);
    if (ratio <= 1.0) {
      q = q_halves_;
      v = v_halves_;
      done = last ? h : done + s;
      ++accepted_;
      smallest_ = std::min(smallest_, s);
      // A sub-step shortened only to end at h does not limit the next call's first one.
      next_ = last && s < planned ? std::max(planned, s * factor) : s * factor;
      s = next_;
    } else {
      ++rejected_;
      s *= factor;
      if (s < min_step) {
        throw Error(fmt::format("abdyn::AdaptiveRungeKutta4::step: the sub-step fell below {:g} s (min_step_fraction "
                                "of h = {:g} s) {:g} s into the step: the local error cannot be made small (the "
                                "motion is too fast or the dynamics are not finite){}",
                                min_step, h, done, failure.empty() ? std::string() : "; the last trial failed: " + failure));
      }
    }
  }
}

}  // namespace abdyn
