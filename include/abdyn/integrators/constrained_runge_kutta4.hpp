#pragma once
/// @file
/// One step of the classical fourth-order Runge-Kutta method for a model with loop closures or mimic
/// couplings (a ConstraintSet): the accelerations of every stage come from forwardDynamicsConstrained, the
/// stages move q on the configuration manifold exactly as RungeKutta4 does (Runge-Kutta-Munthe-Kaas:
/// exponential coordinates whose rates are corrected by exponentialCoordinateRate), and the step ends with
/// post-stabilisation (docs/integrators.md):
///   q1 <- the Gauss-Newton projection of q1 onto C(q) = 0 (projectPositions),
///   v1 <- the M-orthogonal projection of v1 onto G(q1) v = 0 (projectVelocities).
/// RK4 alone keeps C(q) = 0 and G v = 0 only to the step's error, O(h^5) per step; the projections remove
/// that drift (to the projection's tolerance) and leave the fourth-order accuracy of the step.
/// Allocation-free after construction (and after ConstrainedDynamicsData is built).

#include <Eigen/Core>

#include "abdyn/constraints/constrained_dynamics.hpp"
#include "abdyn/integrators/constrained_step_settings.hpp"
#include "abdyn/integrators/runge_kutta4.hpp"

namespace abdyn {

/// One RK4 step of a model with loop closures or couplings, then post-stabilisation (see the file comment).
class ConstrainedRungeKutta4 {
 public:
  /// Allocates the stage workspace for this model; step() allocates nothing.
  explicit ConstrainedRungeKutta4(const Model& model);

  /// Advances (q, v) by h under constant joint forces tau, cd being the constrained-dynamics workspace of
  /// `constraints` (its results are those of the last stage or projection). When a stage throws, (q, v) are
  /// left as they were. A step whose result is not finite (a diverging run) is returned unprojected, for the
  /// caller to see; a failed position projection throws abdyn::Error with (q, v) at the partial projection.
  void step(const Model& model, Data& data, ConstrainedDynamicsData& cd, const ConstraintSet& constraints,
            Eigen::VectorXd& q, Eigen::VectorXd& v, const Eigen::VectorXd& tau, double h,
            const ConstrainedStepSettings& settings = {});

 private:
  detail::RungeKutta4Stages stages_;
};

}  // namespace abdyn
