#pragma once
// Small dense solves of the constraint solvers, written by hand so that they allocate nothing: a Cholesky
// factor with a regularity test and its solve, for the regular multiplier systems, the minimum-norm
// solve from a complete orthogonal decomposition, for the singular ones.

#include <vector>

#include <Eigen/Core>
#include <Eigen/QR>

namespace abdyn::internal {

/// R upper triangular with R^T R = A (A symmetric, only its upper triangle is read) when every pivot
/// exceeds tolerance times A's largest diagonal entry; false otherwise (A numerically singular or not
/// positive definite), R then partly written. R has A's size.
bool choleskyFactor(const Eigen::MatrixXd& A, double tolerance, Eigen::MatrixXd& R);

/// x = A^-1 x with R from choleskyFactor: R^T z = x, then R x = z.
void choleskySolve(const Eigen::MatrixXd& R, Eigen::Ref<Eigen::VectorXd> x);

/// X = A^+ B, the minimum-norm least-squares solution of A X = B for each column of B (one column, a vector,
/// or many), from A's complete orthogonal decomposition, without heap temporaries. Caller workspace: work has
/// A's row count, y A's column count, both B's column count; either may be B itself when A is square. X has
/// A's column count and B's column count, and must not overlap y.
void minimumNormSolve(const Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>& cod,
                      const Eigen::Ref<const Eigen::MatrixXd>& B, Eigen::Ref<Eigen::MatrixXd> work,
                      Eigen::Ref<Eigen::MatrixXd> y, Eigen::Ref<Eigen::MatrixXd> X);

}  // namespace abdyn::internal
