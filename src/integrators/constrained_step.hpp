#pragma once
// The door and the post-stabilisation that the constrained integrators (ConstrainedRungeKutta4,
// ConstrainedImplicitDampingEuler) share. Defined in constrained_step.cpp.

#include "abdyn/integrators/constrained_step_settings.hpp"

namespace abdyn::internal {

/// The checks at the door of a constrained step: data and the integrator's workspace (velocity size
/// workspace_nv) and cd belong to the model and constraints; q, v and tau have the model's sizes; h is
/// positive and finite; the settings are in range. Throws abdyn::InvalidArgument naming `function`.
void checkConstrainedStep(const Model& model, const Data& data, Eigen::Index workspace_nv, const ConstrainedDynamicsData& cd,
                          const ConstraintSet& constraints, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                          const Eigen::VectorXd& tau, double h, const ConstrainedStepSettings& settings,
                          const char* function);

/// The end of a constrained step: unless settings.project is off or (q, v) is not finite (a diverging run,
/// returned as it is for the caller to see), q onto C(q) = 0 and v onto G(q) v = 0.
void postStabilise(const Model& model, Data& data, ConstrainedDynamicsData& cd, const ConstraintSet& constraints,
                   Eigen::VectorXd& q, Eigen::VectorXd& v, const ConstrainedStepSettings& settings);

}  // namespace abdyn::internal
