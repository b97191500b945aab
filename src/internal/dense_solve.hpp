#pragma once
// Small dense solves of the constraint solvers, written by hand so that they allocate nothing: a Cholesky
// factor with a regularity test and its solve, for the regular multiplier systems, the minimum-norm
// solve from a complete orthogonal decomposition, for the singular ones, and Gaussian elimination with
// complete pivoting, for singular systems that must be told consistent or not.

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

/// x = A^+ b, the minimum-norm least-squares solution, from A's complete orthogonal decomposition, without
/// heap temporaries. work has A's row count, y and x its column count.
void minimumNormSolve(const Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>& cod, const Eigen::VectorXd& b,
                      Eigen::Ref<Eigen::VectorXd> work, Eigen::Ref<Eigen::VectorXd> y, Eigen::Ref<Eigen::VectorXd> x);

/// Solves S x = rhs (S square, possibly singular; rhs any number of columns) by Gaussian elimination with
/// complete pivoting, in place: S and rhs are overwritten, x receives a basic solution (the unknowns past
/// the numerical rank, where pivots fall below 1e-11 of the first, are zero). Returns 0, or, when the
/// system is inconsistent (rows dependent on the others whose right-hand sides differ from theirs by more
/// than 1e-8 of rhs's largest entry), the number of dependent rows, x then unset. perm is scratch.
int completePivotingSolve(Eigen::MatrixXd& S, Eigen::MatrixXd& rhs, std::vector<int>& perm, Eigen::MatrixXd& x);

}  // namespace abdyn::internal
