#include "internal/dense_solve.hpp"

#include <cmath>

namespace abdyn::internal {

bool choleskyFactor(const Eigen::MatrixXd& A, double tolerance, Eigen::MatrixXd& R) {
  R = A;
  const Eigen::Index m = R.rows();
  const double floor = m > 0 ? tolerance * A.diagonal().maxCoeff() : 0.0;
  for (Eigen::Index j = 0; j < m; ++j) {
    double d = R(j, j);
    for (Eigen::Index k = 0; k < j; ++k) d -= R(k, j) * R(k, j);
    if (!(d > floor)) return false;
    const double rjj = std::sqrt(d);
    R(j, j) = rjj;
    for (Eigen::Index i = j + 1; i < m; ++i) {
      double sum = R(j, i);
      for (Eigen::Index k = 0; k < j; ++k) sum -= R(k, j) * R(k, i);
      R(j, i) = sum / rjj;
    }
  }
  return true;
}

void choleskySolve(const Eigen::MatrixXd& R, Eigen::Ref<Eigen::VectorXd> x) {
  const Eigen::Index m = R.rows();
  for (Eigen::Index j = 0; j < m; ++j) {  // R^T z = x
    double sum = x[j];
    for (Eigen::Index k = 0; k < j; ++k) sum -= R(k, j) * x[k];
    x[j] = sum / R(j, j);
  }
  for (Eigen::Index j = m - 1; j >= 0; --j) {  // R x = z
    double sum = x[j];
    for (Eigen::Index k = j + 1; k < m; ++k) sum -= R(j, k) * x[k];
    x[j] = sum / R(j, j);
  }
}

// X = A^+ B, column by column, from A's complete orthogonal decomposition A P = Q [T11 0; 0 0] Z (rank r),
// without the temporaries of Eigen's solve(), which allocate:
//   C = Q^T B (the first r Householder reflectors of Q suffice: later ones leave C(0:r) alone),
//   Y = Z^T [T11^-1 C(0:r); 0] (Z's reflectors each mix row k with rows r..n-1),  X = P Y.
// The reflectors are applied one column at a time: a dot product and an update of one contiguous column.
void minimumNormSolve(const Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>& cod,
                      const Eigen::Ref<const Eigen::MatrixXd>& B, Eigen::Ref<Eigen::MatrixXd> work,
                      Eigen::Ref<Eigen::MatrixXd> y, Eigen::Ref<Eigen::MatrixXd> X) {
  const Eigen::Index rows = cod.rows(), cols = cod.cols(), r = cod.rank(), k_cols = B.cols();
  const Eigen::MatrixXd& QTZ = cod.matrixQTZ();
  if (work.data() != B.data()) work = B;
  for (Eigen::Index k = 0; k < r; ++k) {
    const auto essential = QTZ.col(k).tail(rows - k - 1);
    const double tau = cod.hCoeffs()[k];
    for (Eigen::Index c = 0; c < k_cols; ++c) {
      auto column = work.col(c);
      const double s = tau * (column[k] + essential.dot(column.tail(rows - k - 1)));
      column[k] -= s;
      column.tail(rows - k - 1) -= s * essential;
    }
  }
  if (y.data() != work.data()) y.topRows(r) = work.topRows(r);
  y.bottomRows(cols - r).setZero();
  QTZ.topLeftCorner(r, r).triangularView<Eigen::Upper>().solveInPlace(y.topRows(r));
  for (Eigen::Index k = 0; k < r && r < cols; ++k) {
    const auto essential = QTZ.row(k).tail(cols - r).transpose();
    const double tau = cod.zCoeffs()[k];
    for (Eigen::Index c = 0; c < k_cols; ++c) {
      auto column = y.col(c);
      const double s = tau * (column[k] + essential.dot(column.tail(cols - r)));
      column[k] -= s;
      column.tail(cols - r) -= s * essential;
    }
  }
  const auto& perm = cod.colsPermutation().indices();
  for (Eigen::Index i = 0; i < cols; ++i) X.row(perm[i]) = y.row(i);
}

}  // namespace abdyn::internal
