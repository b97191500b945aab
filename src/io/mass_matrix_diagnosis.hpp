#pragma once
// The loaders' check that a model's mass matrix M(q) is positive definite, from the pivots of
// factorizeMassMatrix's L^T D L factor (Featherstone RBDA sec. 6.5, leaves first): pivot D_k is what is
// left of M(k, k) once the coordinates beyond k have taken their share, the inertia of coordinate k's
// motion with every descendant free. A pivot at rounding level (1e-10 of M(k, k)) means that the bodies
// beyond joint k can follow its motion at no cost, e.g. a massless body whose only child turns about one
// axis, or a point mass on a free joint. Some files are singular only where two axes line up (a point-mass
// link between two joints whose axes meet at the neutral configuration): a loader checks M at
// genericConfiguration, where a singular pivot refuses the file, and at the neutral one, where it is a
// warning. The factorisation costs O(n depth^2), n^3 / 6 on a chain: loaders skip it beyond
// kDiagnosisDofs coordinates, so that loading stays fast and O(n) in memory.

#include <Eigen/Core>

#include "abdyn/model/data.hpp"
#include "abdyn/model/model.hpp"

namespace abdyn::internal {

/// The most velocity coordinates a loader factorises M for.
constexpr int kDiagnosisDofs = 256;

/// A configuration in no special position: every coordinate moved from the neutral one by a different
/// amount.
Eigen::VectorXd genericConfiguration(const Model& model);

/// The first coordinate (from the leaves) whose pivot of M(q) vanishes (at most 1e-10 of M(k, k)), or -1.
/// Uses data's mass-matrix storage.
int singularCoordinate(const Model& model, Data& data, const Eigen::VectorXd& q);

}  // namespace abdyn::internal
