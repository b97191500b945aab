#pragma once
// Centred finite differences for the derivative tests: the independent computation their analytic
// derivatives are checked against.

#include <functional>
#include <vector>

#include <Eigen/Core>

namespace abdyn::test {

/// The step in the arguments a function is at most quadratic in (v, qdd and tau of the dynamics): there
/// a centred difference has no truncation error, and the large step divides the rounding error.
constexpr double kStepQuadratic = 1e-2;

/// A function of a vector, differentiated by the helpers below.
using VectorFunction = std::function<Eigen::VectorXd(const Eigen::VectorXd&)>;

/// Centred differences (y(x + h e_k) - y(x - h e_k)) / 2h of y at x, one column per coordinate k (or only
/// the coordinates listed in `columns`, in that order).
inline Eigen::MatrixXd fdVector(const Eigen::VectorXd& x, const VectorFunction& y, double step,
                                const std::vector<int>& columns = {}) {
  const int m = columns.empty() ? static_cast<int>(x.size()) : static_cast<int>(columns.size());
  Eigen::MatrixXd J(y(x).size(), m);
  Eigen::VectorXd xk = x;
  for (int c = 0; c < m; ++c) {
    const int k = columns.empty() ? c : columns[static_cast<std::size_t>(c)];
    xk[k] = x[k] + step;
    const Eigen::VectorXd plus = y(xk);
    xk[k] = x[k] - step;
    const Eigen::VectorXd minus = y(xk);
    xk[k] = x[k];
    J.col(c) = (plus - minus) / (2.0 * step);
  }
  return J;
}

}  // namespace abdyn::test
