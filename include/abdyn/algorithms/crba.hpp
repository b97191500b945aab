#pragma once
/// @file
/// The joint-space mass matrix by the composite-rigid-body algorithm (Featherstone RBDA sec. 6.2), and
/// its sparse L^T D L factorisation (RBDA sec. 6.5), which keeps the branch-induced sparsity of M:
/// M(k, l) is zero unless one of k, l is an ancestor of the other, and L has the same pattern.

#include "abdyn/algorithms/dynamics_options.hpp"
#include "abdyn/model/data.hpp"

namespace abdyn {

/// M(q) with both triangles filled (and armature on the diagonal if options.armature), into data.M.
/// Only entries of ancestor-descendant pairs are computed; the others are zero.
const Eigen::MatrixXd& massMatrix(const Model& model, Data& data, const Eigen::VectorXd& q,
                                  const DynamicsOptions& options = {});

/// Factorises data.M = L^T D L into data.factor_L and data.factor_D (L unit lower-triangular, each row
/// packed along its ancestors; data.hpp), visiting only the sparsity pattern. Throws abdyn::Error if M is not positive definite.
void factorizeMassMatrix(const Model& model, Data& data);

/// Solves M x = b in place with the factor in data.factor_L, data.factor_D (factorizeMassMatrix first). O(nv * depth).
void solveMassMatrix(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> b);
///@{
/// Multiplies x (nv) in place by L (as in M = L^T D L), L^T, L^-1 or L^-T, from data.factor_L
/// (factorizeMassMatrix first); for users composing their own sparse solves (e.g.
/// Gamma = G M^-1 G^T = (G L^-1) D^-1 (G L^-1)^T).
void multiplyByL(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> x);
void multiplyByLTransposed(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> x);
void solveL(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> x);
void solveLTransposed(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> x);
///@}

}  // namespace abdyn
