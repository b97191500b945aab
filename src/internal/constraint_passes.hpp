#pragma once
// The constraints layer's own passes, shared by its solvers: the closures evaluated from a kinematics pass
// that already ran at q (the algorithms layer's shared passes, shared_passes.hpp, produce it), and the
// constrained forward dynamics behind its public door's argument checks.

#include "abdyn/constraints/constrained_dynamics.hpp"
#include "abdyn/constraints/loop_closure.hpp"
#include "abdyn/model/data.hpp"

namespace abdyn::internal {

/// C and G (and G_exact with exact_jacobian) of the constraints from data.X_body_world; with a_bias also gamma,
/// from data.v and the body accelerations at qdd = 0 a_bias: data.a after forwardKinematics, or
/// data.a_with_gravity after RNEA (its base acceleration a_bias[0] is taken out).
void evaluateConstraints(const Model& model, const Data& data, const ConstraintSet& constraints, ConstraintKinematics& ck,
                         const Eigen::VectorXd& q, const std::vector<Motion>* a_bias, bool exact_jacobian);

/// forwardDynamicsConstrained without its argument checks, for the callers that checked them at their door.
const Eigen::VectorXd& forwardDynamicsConstrainedUnchecked(const Model& model, Data& data, ConstrainedDynamicsData& cd,
                                                           const ConstraintSet& constraints, const Eigen::VectorXd& q,
                                                           const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
                                                           const ConstrainedDynamicsSettings& settings);

}  // namespace abdyn::internal
