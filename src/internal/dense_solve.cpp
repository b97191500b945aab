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

// x = A^+ b, the minimum-norm least-squares solution, from A's complete orthogonal decomposition
// A P = Q [T11 0; 0 0] Z (rank r), without the temporaries of Eigen's solve(), which allocate:
//   c = Q^T b (the first r Householder reflectors of Q suffice: later ones leave c(0:r) alone),
//   z = T11^-1 c(0:r),  y = Z^T [z; 0] (Z's reflectors each mix row k with rows r..n-1),  x = P y.
// work has A's row count, y and x its column count.
void minimumNormSolve(const Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>& cod, const Eigen::VectorXd& b,
                      Eigen::Ref<Eigen::VectorXd> work, Eigen::Ref<Eigen::VectorXd> y, Eigen::Ref<Eigen::VectorXd> x) {
  const Eigen::Index rows = cod.rows(), cols = cod.cols(), r = cod.rank();
  const Eigen::MatrixXd& QTZ = cod.matrixQTZ();
  work = b;
  for (Eigen::Index k = 0; k < r; ++k) {
    const auto essential = QTZ.col(k).tail(rows - k - 1);
    const double s = work[k] + essential.dot(work.tail(rows - k - 1));
    work[k] -= cod.hCoeffs()[k] * s;
    work.tail(rows - k - 1) -= (cod.hCoeffs()[k] * s) * essential;
  }
  y.setZero();
  y.head(r) = work.head(r);
  QTZ.topLeftCorner(r, r).triangularView<Eigen::Upper>().solveInPlace(y.head(r));
  for (Eigen::Index k = 0; k < r && r < cols; ++k) {
    const auto essential = QTZ.row(k).tail(cols - r).transpose();
    const double s = y[k] + essential.dot(y.tail(cols - r));
    y[k] -= cod.zCoeffs()[k] * s;
    y.tail(cols - r) -= (cod.zCoeffs()[k] * s) * essential;
  }
  const auto& perm = cod.colsPermutation().indices();
  for (Eigen::Index i = 0; i < cols; ++i) x[perm[i]] = y[i];
}

}  // namespace abdyn::internal
