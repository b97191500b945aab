#pragma once
// The constraints layer's unchecked passes, shared by its solvers and by the integrators that checked their
// arguments at their own door: the closures evaluated from a kinematics pass that already ran at q (the
// algorithms layer's passes, algorithms/passes.hpp, produce it), the constrained forward dynamics behind its
// public door's argument checks, and the pieces its derivative shares so that both read the same
// stabilisation gains. Each group names the file (src/constraints/) that defines it.

#include <utility>
#include <vector>

#include "abdyn/constraints/constrained_dynamics.hpp"
#include "abdyn/constraints/loop_closure.hpp"
#include "abdyn/model/data.hpp"

namespace abdyn::internal {

// loop_closure.cpp

/// C and G (and G_exact with exact_jacobian) of the constraints from data.X_body_world; with a_bias also gamma,
/// from data.v and the body accelerations at qdd = 0 a_bias: data.a after forwardKinematics, or
/// data.a_with_gravity after RNEA (its base acceleration a_bias[0] is taken out).
void evaluateConstraints(const Model& model, const Data& data, const ConstraintSet& constraints, ConstraintKinematics& ck,
                         const Eigen::VectorXd& q, const std::vector<Motion>* a_bias, bool exact_jacobian);

/// Sets mask[k] for every velocity coordinate that moves `body` (its joint's and its ancestors' joints').
void markPathCoordinates(const Model& model, int body, std::vector<bool>& mask);

// constrained_dynamics.cpp

/// The solvers' access to ConstrainedDynamicsData's private workspace.
struct ConstrainedWorkspaceAccess {
  /// cd's workspace.
  static ConstrainedDynamicsData::Workspace& of(ConstrainedDynamicsData& cd) { return cd.work_; }
  /// cd's workspace, read-only.
  static const ConstrainedDynamicsData::Workspace& of(const ConstrainedDynamicsData& cd) { return cd.work_; }
};
/// cd's workspace (the solvers' scratch, constrained_dynamics.hpp).
inline auto& work(ConstrainedDynamicsData& cd) { return ConstrainedWorkspaceAccess::of(cd); }
/// cd's workspace, read-only.
inline const auto& work(const ConstrainedDynamicsData& cd) { return ConstrainedWorkspaceAccess::of(cd); }

/// forwardDynamicsConstrained without its argument checks, for the callers that checked them at their door.
const Eigen::VectorXd& forwardDynamicsConstrainedUnchecked(const Model& model, Data& data, ConstrainedDynamicsData& cd,
                                                           const ConstraintSet& constraints, const Eigen::VectorXd& q,
                                                           const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
                                                           const ConstrainedDynamicsSettings& settings);

/// The door of the constrained calls: data and cd belong to the model and constraints, q has the model's
/// size, and the settings (when given: a dynamics call, which needs Model::hasDynamics) are in range; throws abdyn::InvalidArgument naming `function`.
void checkConstrainedCall(const Model& model, const Data& data, const ConstrainedDynamicsData& cd,
                          const ConstraintSet& constraints, const Eigen::VectorXd& q,
                          const ConstrainedDynamicsSettings* settings, const char* function);

/// Throws abdyn::InvalidArgument naming `function` when cd was built for other constraints or another model.
void checkConstrainedWorkspace(const ConstrainedDynamicsData& cd, const Model& model, const ConstraintSet& constraints,
                               const char* function);

/// Throws abdyn::InvalidArgument naming `function` and the setting out of range.
void checkConstrainedSettings(const ConstrainedDynamicsSettings& settings, const char* function);

/// (a, b) of rhs = gamma - a G v - b C for settings.stabilisation (formulas in constrained_dynamics.hpp).
std::pair<double, double> feedbackGains(const ConstrainedDynamicsSettings& settings);

}  // namespace abdyn::internal
