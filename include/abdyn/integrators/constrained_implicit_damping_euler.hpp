#pragma once
/// @file
/// Implicit-damping Euler (implicit_damping_euler.hpp) for a model with loop closures or mimic couplings (a
/// ConstraintSet): the constrained accelerations with the joint damping taken at the end of the step, i.e. with
/// M + h D in place of M in the constrained system (forwardDynamicsConstrained with
/// dynamics.implicit_damping_step = h),
///   v[t+h] = v[t] + h qdd_c(q[t], v[t]),   q[t+h] = q[t] (+) h v[t+h],
/// followed by ConstrainedRungeKutta4's post-stabilisation (projectPositions, then projectVelocities). First
/// order; stable for any joint damping. Allocation-free after construction (and after ConstrainedDynamicsData
/// is built).

#include <Eigen/Core>

#include "abdyn/constraints/constrained_dynamics.hpp"
#include "abdyn/integrators/constrained_step_settings.hpp"

namespace abdyn {

/// Implicit-damping Euler with constraints and post-stabilisation (see above).
class ConstrainedImplicitDampingEuler {
 public:
  /// Remembers the model's size, which step() checks its arguments against.
  explicit ConstrainedImplicitDampingEuler(const Model& model);

  /// Advances (q, v) by h under constant joint forces tau, cd being the constrained-dynamics workspace of
  /// `constraints`; settings.dynamics.dynamics.implicit_damping_step is set to h. When the solve throws, (q, v)
  /// are left as they were. A step whose result is not finite (a diverging run) is returned unprojected; a failed
  /// position projection throws abdyn::Error with (q, v) at the partial projection.
  void step(const Model& model, Data& data, ConstrainedDynamicsData& cd, const ConstraintSet& constraints,
            Eigen::VectorXd& q, Eigen::VectorXd& v, const Eigen::VectorXd& tau, double h,
            const ConstrainedStepSettings& settings = {});

 private:
  Eigen::Index nv_;
};

}  // namespace abdyn
