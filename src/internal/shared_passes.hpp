#pragma once
// Later passes of the algorithms, for callers that already hold the joint transforms data.X_up at q
// (from RNEA, say): one kinematics pass then serves several algorithms.

#include "abdyn/algorithms/dynamics_options.hpp"
#include "abdyn/constraints/loop_closure.hpp"
#include "abdyn/model/data.hpp"

namespace abdyn::internal {

/// massMatrix (crba.hpp) with data.X_up already at q.
const Eigen::MatrixXd& massMatrixAtTransforms(const Model& model, Data& data, const DynamicsOptions& options);

/// data.X_world from data.X_up (forwardKinematics' positions without recomputing the joint transforms).
void worldTransformsAtTransforms(const Model& model, Data& data);

/// C and G (and gamma with with_bias, G_exact with exact_jacobian) of the constraints from data.X_world,
/// and data.v and data.a at qdd = 0 (with_bias); data.a may include a base acceleration data.a[0].
void evaluateConstraints(const Model& model, const Data& data, const ConstraintSet& constraints, ConstraintKinematics& ck,
                         const Eigen::VectorXd& q, bool with_bias, bool exact_jacobian);

}  // namespace abdyn::internal
