#pragma once
// Pieces of the constrained solver (src/constraints/constrained_dynamics.cpp) that its derivative
// (constrained_derivatives.cpp) shares, so that both read the same stabilisation gains (their dense solves
// are in dense_solve.hpp).

#include <utility>

#include "abdyn/constraints/constrained_dynamics.hpp"

namespace abdyn::internal {

/// Throws abdyn::InvalidArgument naming `function` when cd was built for other constraints or another model.
void checkConstrainedWorkspace(const ConstrainedDynamicsData& cd, const Model& model, const ConstraintSet& constraints,
                               const char* function);

/// Throws abdyn::InvalidArgument naming `function` and the setting out of range.
void checkConstrainedSettings(const ConstrainedDynamicsSettings& settings, const char* function);

/// (a, b) of rhs = gamma - a G v - b C for settings.stabilisation (formulas in constrained_dynamics.hpp).
std::pair<double, double> feedbackGains(const ConstrainedDynamicsSettings& settings);

}  // namespace abdyn::internal
