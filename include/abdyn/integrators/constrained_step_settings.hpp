#pragma once
/// @file
/// The settings of the constrained integrators' steps (ConstrainedRungeKutta4, ConstrainedImplicitDampingEuler):
/// the constrained dynamics of each evaluation and the post-stabilisation that ends the step.

#include "abdyn/constraints/constrained_dynamics.hpp"

namespace abdyn {

/// What a constrained step solves with and how it projects its end state back onto the constraints.
struct ConstrainedStepSettings {
  ConstrainedDynamicsSettings dynamics;  ///< the stages' forwardDynamicsConstrained (and the velocity projection's M)
  bool project = true;                   ///< post-stabilisation after the step (false: the step alone)
  double position_tolerance = 1e-12;     ///< projectPositions: max |C| to reach, > 0
  int max_projection_iterations = 100;   ///< projectPositions: Gauss-Newton iterations allowed, >= 1
};

}  // namespace abdyn
