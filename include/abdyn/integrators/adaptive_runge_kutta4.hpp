#pragma once
/// @file
/// RK4 with step control by step doubling (Hairer, Norsett, Wanner, Solving ODEs I, sec. II.4): each
/// caller's step h is covered by as many sub-steps as a local error tolerance needs. A sub-step of length
/// s is taken once whole, (q1, v1), and as two halves, (q2, v2), both by RungeKutta4; for a fourth-order
/// method the halves' local error is about (x2 - x1) / 15, judged per coordinate against
///   atol + rtol * max(|x1|, |x2|)   (max norm; q and v alike),
/// and the halves are kept when the ratio is at most 1. The next sub-step is s * clamp(0.9 ratio^(-1/5),
/// 0.2, 4) and is remembered across calls, so a smooth model takes one sub-step per call. q differences
/// are coordinate differences: for quaternions that is half the rotation-angle error, the right size for
/// an estimate (both results start from the same q, so no sign flip separates them).
/// Why: an undamped chain of light links (fingers whose tips are point masses) on a heavy, falling body
/// whips: energy moves into the lightest joints, which reach thousands of rad/s for a moment, and a
/// fixed step of 1 ms (omega h > 2.8) cannot follow them, though the exact motion conserves energy.
/// Where the model is smooth the sub-step equals the caller's step and the cost is three RK4 steps.

#include <Eigen/Core>

#include "abdyn/algorithms/dynamics_options.hpp"
#include "abdyn/integrators/runge_kutta4.hpp"
#include "abdyn/model/data.hpp"

namespace abdyn {

/// Tolerances and limits of AdaptiveRungeKutta4's step control.
struct AdaptiveRungeKutta4Settings {
  /// Local error tolerance of one sub-step, relative to the coordinate's size.
  double relative_tolerance = 1e-6;
  /// Local error tolerance of one sub-step, absolute (rad, m, rad/s, m/s).
  double absolute_tolerance = 1e-6;
  /// The smallest sub-step, as a fraction of the caller's step: below it, step() throws abdyn::Error.
  double min_step_fraction = 1e-7;
  /// The most sub-steps (accepted and rejected) one call may take: beyond it, step() throws abdyn::Error. A
  /// stiff model (stiff joint damping) otherwise creeps on at sub-steps just above the smallest fraction,
  /// millions per call; an implicit step is what it needs.
  int max_substeps = 10000;
};

/// RK4 with step doubling: each step(h) takes as many sub-steps as the local error tolerance needs
/// (see the file comment).
class AdaptiveRungeKutta4 {
 public:
  /// Allocates the workspace for this model; step() allocates nothing. Throws abdyn::InvalidArgument
  /// for tolerances or a smallest fraction that are not positive and finite, or a sub-step budget below 1.
  explicit AdaptiveRungeKutta4(const Model& model, const AdaptiveRungeKutta4Settings& settings = {});

  /// Advances (q, v) by exactly h under constant joint forces tau, in sub-steps that meet the tolerance.
  /// Throws abdyn::Error when the sub-step would fall below min_step_fraction * h or the call would take
  /// more than max_substeps sub-steps; (q, v) then hold the state reached.
  void step(const Model& model, Data& data, Eigen::VectorXd& q, Eigen::VectorXd& v, const Eigen::VectorXd& tau, double h,
            const DynamicsOptions& options = {});

  /// Sub-steps accepted and rejected in the last call to step(), and the smallest accepted.
  int lastAccepted() const { return accepted_; }
  /// Sub-steps rejected in the last step().
  int lastRejected() const { return rejected_; }
  /// The shortest sub-step accepted in the last step() (s).
  double lastSmallestStep() const { return smallest_; }

 private:
  double errorRatio() const;

  AdaptiveRungeKutta4Settings settings_;
  RungeKutta4 rk_;
  Eigen::VectorXd q_whole_, v_whole_, q_halves_, v_halves_;
  double next_ = 0.0;  ///< the proposed sub-step; 0 before the first call
  int accepted_ = 0, rejected_ = 0;
  double smallest_ = 0.0;
};

}  // namespace abdyn
