#include "abdyn/constraints/row_pgs.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "abdyn/error.hpp"
#include "abdyn/logging.hpp"

namespace abdyn {
namespace {

void checkSettings(const RowSet& rows, const Eigen::VectorXd& v, const PgsSettings& settings) {
  if (!(settings.omega > 0.0 && settings.omega < 2.0)) {
    throw InvalidArgument("abdyn::solveRowsPgs: 'omega' must lie in (0, 2), got " + std::to_string(settings.omega));
  }
  if (settings.max_iterations < 1 || !(settings.tolerance >= 0.0)) {
    throw InvalidArgument("abdyn::solveRowsPgs: need max_iterations >= 1 and tolerance >= 0");
  }
  for (int r = 0; r < rows.size(); ++r) {
    const ConstraintRow& row = rows[r];
    if (row.J.size() != v.size()) {
      throw InvalidArgument("abdyn::solveRowsPgs: row " + std::to_string(r) + " has " + std::to_string(row.J.size()) +
                            " columns, v has " + std::to_string(v.size()));
    }
    if (row.tie >= rows.size() || row.tie == r) {
      throw InvalidArgument("abdyn::solveRowsPgs: row " + std::to_string(r) + " is tied to row " +
                            std::to_string(row.tie) + ", which is not another row of the set");
    }
    if (row.tie < 0 && !(row.lo <= row.hi)) {
      throw InvalidArgument("abdyn::solveRowsPgs: row " + std::to_string(r) + " has lo > hi");
    }
    if (!(row.cfm >= 0.0)) throw InvalidArgument("abdyn::solveRowsPgs: row " + std::to_string(r) + " has cfm < 0");
  }
}

void bounds(const RowSet& rows, const ConstraintRow& row, double& lo, double& hi) {
  if (row.tie >= 0) {
    hi = row.mu * std::max(0.0, rows[row.tie].impulse);
    lo = -hi;
  } else {
    lo = row.lo;
    hi = row.hi;
  }
}

}  // namespace

PgsReport solveRowsPgs(RowSet& rows, Eigen::VectorXd& v, const PgsSettings& settings) {
  checkSettings(rows, v, settings);
  PgsReport report;
  for (int r = 0; r < rows.size(); ++r) {
    ConstraintRow& row = rows[r];
    // Joint rows touch one coordinate, contact rows the ancestors of two bodies: the sweeps read J
    // (its nonzero span) only; M^-1 J^T is dense.
    row.j_begin = 0;
    row.j_end = static_cast<int>(row.J.size());
    while (row.j_begin < row.j_end && row.J[row.j_begin] == 0.0) ++row.j_begin;
    while (row.j_end > row.j_begin && row.J[row.j_end - 1] == 0.0) --row.j_end;
    const double K = row.J.dot(row.Minv_Jt) + row.cfm;
    row.inv_k = K > 0.0 ? 1.0 / K : 0.0;  // a row that no velocity can move is left out
    if (!settings.warm_start || row.inv_k == 0.0) row.impulse = 0.0;
  }
  for (int r = 0; r < rows.size(); ++r) {
    ConstraintRow& row = rows[r];
    if (row.impulse == 0.0) continue;
    double lo, hi;
    bounds(rows, row, lo, hi);
    row.impulse = std::clamp(row.impulse, lo, hi);
    v.noalias() += row.Minv_Jt * row.impulse;
  }
  const int nv = static_cast<int>(v.size());
  for (int it = 1; it <= settings.max_iterations; ++it) {
    double residual = 0.0;
    for (int r = 0; r < rows.size(); ++r) {
      ConstraintRow& row = rows[r];
      if (row.inv_k == 0.0) continue;
      double lo, hi;
      bounds(rows, row, lo, hi);
      double Jv = 0.0;
      for (int k = row.j_begin; k < row.j_end; ++k) Jv += row.J[k] * v[k];
      const double w = Jv - row.target + row.cfm * row.impulse;
      residual = std::max(residual, std::abs(row.impulse - std::clamp(row.impulse - w * row.inv_k, lo, hi)) / row.inv_k);
      const double updated = std::clamp(row.impulse - settings.omega * w * row.inv_k, lo, hi);
      if (updated == row.impulse) continue;  // common: a row held at a bound
      const double change = updated - row.impulse;
      double* __restrict vk = v.data();
      const double* __restrict response = row.Minv_Jt.data();
      for (int k = 0; k < nv; ++k) vk[k] += change * response[k];
      row.impulse = updated;
    }
    report.iterations = it;
    report.residual = residual;
    if (residual <= settings.tolerance) return report;
  }
  // Hitting the cap is routine in real-time stepping, so it is a debug report, not a warning.
  logger()->debug("abdyn::solveRowsPgs: {} rows, residual {:.3g} after {} sweeps (tolerance {:.3g}, omega {})",
                  rows.size(), report.residual, report.iterations, settings.tolerance, settings.omega);
  return report;
}

}  // namespace abdyn
