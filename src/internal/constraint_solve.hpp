#pragma once
// Pieces of the constrained solver (src/constraints/constrained_dynamics.cpp) that its derivative
// (constrained_derivatives.cpp) shares, so that both read the same stabilisation gains and solve singular
// systems by the same minimum-norm convention.

#include <utility>

#include <Eigen/QR>

#include "abdyn/constraints/constrained_dynamics.hpp"

namespace abdyn::internal {

/// Throws abdyn::InvalidArgument naming `function` when cd was built for other constraints or another model.
void checkConstrainedWorkspace(const ConstrainedDynamicsData& cd, const Model& model, const ConstraintSet& constraints,
                               const char* function);

/// Throws abdyn::InvalidArgument naming `function` and the setting out of range.
void checkConstrainedSettings(const ConstrainedDynamicsSettings& settings, const char* function);

/// (a, b) of rhs = gamma - a G v - b C for settings.stabilisation (formulas in constrained_dynamics.hpp).
std::pair<double, double> feedbackGains(const ConstrainedDynamicsSettings& settings);

/// x = A^+ b, the minimum-norm least-squares solution, from A's complete orthogonal decomposition, without
/// heap temporaries. work has A's row count, y and x its column count.
void minimumNormSolve(const Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>& cod, const Eigen::VectorXd& b,
                      Eigen::Ref<Eigen::VectorXd> work, Eigen::Ref<Eigen::VectorXd> y, Eigen::Ref<Eigen::VectorXd> x);

}  // namespace abdyn::internal
