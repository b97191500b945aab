#include "internal/dense_solve.hpp"

#include <cmath>
#include <utility>

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

int completePivotingSolve(Eigen::MatrixXd& S, Eigen::MatrixXd& rhs, std::vector<int>& perm, Eigen::MatrixXd& x) {
  const int e = static_cast<int>(S.rows());
  perm.resize(static_cast<std::size_t>(e));
  for (int k = 0; k < e; ++k) perm[static_cast<std::size_t>(k)] = k;
  const double rhs_scale = rhs.cwiseAbs().maxCoeff();
  double first_pivot = 0.0;
  int rank = e;
  for (int k = 0; k < e; ++k) {
    Eigen::Index i = 0, j = 0;
    const double pivot = S.bottomRightCorner(e - k, e - k).cwiseAbs().maxCoeff(&i, &j);
    if (k == 0) first_pivot = pivot;
    if (!(pivot > 1e-11 * first_pivot)) {
      rank = k;
      break;
    }
    S.row(k).swap(S.row(k + i));
    rhs.row(k).swap(rhs.row(k + i));
    S.col(k).swap(S.col(k + j));
    std::swap(perm[static_cast<std::size_t>(k)], perm[static_cast<std::size_t>(k + j)]);
    for (int r = k + 1; r < e; ++r) {
      const double f = S(r, k) / S(k, k);
      S.row(r).tail(e - k) -= f * S.row(k).tail(e - k);
      rhs.row(r) -= f * rhs.row(k);
    }
  }
  if (rank < e && rhs.bottomRows(e - rank).cwiseAbs().maxCoeff() > 1e-8 * (rhs_scale + 1e-300)) return e - rank;
  x.setZero(e, rhs.cols());
  for (int k = rank - 1; k >= 0; --k) {  // back substitution in the first rank rows
    rhs.row(k).noalias() -= S.row(k).segment(k + 1, rank - k - 1) * rhs.middleRows(k + 1, rank - k - 1);
    rhs.row(k) /= S(k, k);
  }
  for (int k = 0; k < rank; ++k) x.row(perm[static_cast<std::size_t>(k)]) = rhs.row(k);
  return 0;
}

}  // namespace abdyn::internal
