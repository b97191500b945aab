#include "abdyn/constraints/row_pgs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "abdyn/algorithms/crba.hpp"
#include "abdyn/error.hpp"
#include "abdyn/logging.hpp"
#include "algorithms/passes.hpp"
#include "internal/checks.hpp"

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

// The coordinates x the sweeps run in (row_pgs.hpp). Each says how a row reads its velocity from x
// (velocity), how its impulse changes x (add) and how one row's impulse moves another's velocity (coupling).
// Velocities: x = v; a row reads J over its nonzero span and writes M^-1 J^T, which is dense.
struct VelocitySpace {
  static double velocity(const ConstraintRow& row, const RowSolverState& s, const double* __restrict x) {
    double sum = 0.0;
    for (int k = s.j_begin; k < s.j_end; ++k) sum += row.J[k] * x[k];
    return sum;
  }
  static double coupling(const ConstraintRow& reader, const RowSolverState& reader_s, const RowSolverState& writer_s) {
    return velocity(reader, reader_s, writer_s.Minv_Jt.data());
  }
  static double blockCoupling(const ConstraintRow& reader, const RowSolverState& reader_s, const RowSolverState& writer_s) {
    return coupling(reader, reader_s, writer_s);
  }
  static void add(const RowSolverState& s, double impulse, double* __restrict x) {
    const double* __restrict response = s.Minv_Jt.data();
    const int n = static_cast<int>(s.Minv_Jt.size());
    for (int k = 0; k < n; ++k) x[k] += impulse * response[k];
  }
  // v_k of a coordinate group's row (J = s e_k).
  static double coordinateVelocity(const ConstraintRow&, const RowSolverState& s, const double* x) { return x[s.j_begin]; }
};

// The factor's coordinates: x = z = L v; a row reads Y and writes D^-1 Y, both only on its support.
// The dot products keep two partial sums: a run is short (6 to 12 coordinates), and one running sum
// would wait on each addition in turn.
struct FactorSpace {
  static double velocity(const ConstraintRow&, const RowSolverState& s, const double* __restrict x) {
    const double* __restrict y = s.Y.data();
    double even = 0.0, odd = 0.0;
    for (int r = 0; r < s.support_runs; ++r) {
      int k = s.support[r].first;
      const int last = s.support[r].last;
      for (; k < last; k += 2) {
        even += y[k] * x[k];
        odd += y[k + 1] * x[k + 1];
      }
      if (k == last) even += y[k] * x[k];
    }
    return even + odd;
  }
  // Over the reader's support, where its Y is nonzero.
  static double coupling(const ConstraintRow& reader, const RowSolverState& reader_s, const RowSolverState& writer_s) {
    return velocity(reader, reader_s, writer_s.Dinv_Y.data());
  }
  // Over the coordinates the two supports share: the bilateral block's rows often come from different
  // loops of one mechanism, whose supports meet only on the common part of their root paths (the
  // delta robot's platform: 6 of 18 coordinates).
  static double blockCoupling(const ConstraintRow&, const RowSolverState& reader, const RowSolverState& writer) {
    const double* __restrict y = reader.Y.data();
    const double* __restrict response = writer.Dinv_Y.data();
    double sum = 0.0;
    for (int a = 0, b = 0; a < reader.support_runs && b < writer.support_runs;) {
      const DofRun& ra = reader.support[a];
      const DofRun& rb = writer.support[b];
      const int last = std::min(ra.last, rb.last);
      for (int k = std::max(ra.first, rb.first); k <= last; ++k) sum += y[k] * response[k];
      if (ra.last < rb.last) ++a;
      else ++b;
    }
    return sum;
  }
  static void add(const RowSolverState& s, double impulse, double* __restrict x) {
    const double* __restrict response = s.Dinv_Y.data();
    for (int r = 0; r < s.support_runs; ++r) {
      for (int k = s.support[r].first; k <= s.support[r].last; ++k) x[k] += impulse * response[k];
    }
  }
  static double coordinateVelocity(const ConstraintRow& row, const RowSolverState& s, const double* x) {
    return velocity(row, s, x) / row.J[s.j_begin];
  }
};

// w = J v - target + cfm lambda.
template <class Space>
double rowResidual(const ConstraintRow& row, const RowSolverState& s, const double* x) {
  return Space::velocity(row, s, x) - row.target + row.cfm * row.impulse;
}

// K |lambda - clamp(lambda - w / K, lo, hi)|: zero exactly when the row's complementarity conditions hold.
double complementarityResidual(double impulse, double w, double inv_k, double lo, double hi) {
  return std::abs(impulse - std::clamp(impulse - w * inv_k, lo, hi)) / inv_k;
}

// A row of a coordinate group (row_pgs.hpp): J = s e_k (one nonzero column), fixed bounds, no softness.
bool isCoordinateRow(const ConstraintRow& row, const RowSolverState& s) {
  return row.tie < 0 && row.cfm == 0.0 && s.inv_k > 0.0 && s.j_end - s.j_begin == 1;
}

constexpr int kMaxCoordinateRows = 4;  // a joint's two limits, its friction and a motor

// The exact solution for the rows of one coordinate group with the other rows' impulses held. With
// u = v_k, d = (M^-1)_kk and P = sum_i s_i lambda_i, u = a + d P (a: u without the group's impulses).
// Row i wants s_i u = target_i, i.e. u = b_i = target_i / s_i; its share c_i = s_i lambda_i is its
// upper end U_i = max(s_i lo_i, s_i hi_i) for u < b_i, its lower end L_i for u > b_i, anything between
// at u = b_i. u - a - d sum_i c_i(u) increases with u, so exactly one interval between sorted
// breakpoints, or one breakpoint, holds its zero.
void solveCoordinate(const ConstraintRow* const* row, const double* s, int m, double a, double d, double* lambda) {
  double b[kMaxCoordinateRows] = {}, L[kMaxCoordinateRows] = {}, U[kMaxCoordinateRows] = {};
  int order[kMaxCoordinateRows] = {};
  for (int i = 0; i < m; ++i) {
    b[i] = row[i]->target / s[i];
    L[i] = std::min(s[i] * row[i]->lo, s[i] * row[i]->hi);
    U[i] = std::max(s[i] * row[i]->lo, s[i] * row[i]->hi);
    int j = i;  // insertion by breakpoint
    for (; j > 0 && b[order[j - 1]] > b[i]; --j) order[j] = order[j - 1];
    order[j] = i;
  }
  // below: rows whose breakpoint lies below the candidate u (at L); the rest sit at U.
  for (int below = 0; below <= m; ++below) {
    double total = 0.0;
    for (int j = 0; j < m; ++j) total += j < below ? L[order[j]] : U[order[j]];
    const double u = a + d * total;
    const bool inside = std::isfinite(u) && (below == 0 || u > b[order[below - 1]]) && (below == m || u < b[order[below]]);
    if (inside) {
      for (int j = 0; j < m; ++j) lambda[order[j]] = (j < below ? L[order[j]] : U[order[j]]) / s[order[j]];
      return;
    }
    if (below == m) break;
    // At the breakpoint u = b of the rows from `below` on that share it: their shares make up the rest.
    const double at = b[order[below]];
    int end = below;
    while (end < m && b[order[end]] == at) ++end;
    double fixed = 0.0, low = 0.0, high = 0.0;
    for (int j = 0; j < m; ++j) {
      if (j < below) fixed += L[order[j]];
      else if (j >= end) fixed += U[order[j]];
      else low += L[order[j]], high += U[order[j]];
    }
    const double need = (at - a) / d - fixed;
    if (std::isfinite(need) && need >= low && need <= high) {
      // Shares of the rows at the breakpoint: their current ones, moved in turn within [L, U] to sum to need.
      double rest = need;
      for (int j = below; j < end; ++j) {
        const int i = order[j];
        lambda[i] = std::clamp(s[i] * row[i]->impulse, L[i], U[i]);
        rest -= lambda[i];
      }
      for (int j = 0; j < m; ++j) {
        const int i = order[j];
        if (j >= below && j < end) {
          const double moved = std::clamp(lambda[i] + rest, L[i], U[i]);
          rest -= moved - lambda[i];
          lambda[i] = moved / s[i];
        } else {
          lambda[i] = (j < below ? L[i] : U[i]) / s[i];
        }
      }
      return;
    }
    below = end - 1;
  }
  for (int i = 0; i < m; ++i) lambda[i] = row[i]->impulse;  // unreachable for d > 0: keep the impulses
}

// The update of the coordinate group that row r leads; returns the largest residual of its rows before it.
template <class Space>
double updateCoordinate(RowSet& rows, int r, double* x, double omega) {
  const ConstraintRow* row[kMaxCoordinateRows] = {};
  double s[kMaxCoordinateRows] = {}, lambda[kMaxCoordinateRows] = {};
  int index[kMaxCoordinateRows] = {};
  int m = 0;
  for (int i = r; i >= 0; i = rows.state(i).next_on_coordinate) {
    index[m] = i;
    row[m] = &rows[i];
    s[m] = rows[i].J[rows.state(i).j_begin];
    ++m;
  }
  const double u = Space::coordinateVelocity(rows[r], rows.state(r), x);
  const double d = 1.0 / (rows.state(r).inv_k * s[0] * s[0]);
  double P = 0.0, residual = 0.0;
  for (int i = 0; i < m; ++i) {
    P += s[i] * row[i]->impulse;
    const double w = s[i] * u - row[i]->target;
    const double inv_k = rows.state(index[i]).inv_k;
    residual = std::max(residual, complementarityResidual(row[i]->impulse, w, inv_k, row[i]->lo, row[i]->hi));
  }
  solveCoordinate(row, s, m, u - d * P, d, lambda);
  double change = 0.0;  // in P
  for (int i = 0; i < m; ++i) {
    ConstraintRow& target = rows[index[i]];
    const double updated = std::clamp(target.impulse + omega * (lambda[i] - target.impulse), target.lo, target.hi);
    change += s[i] * (updated - target.impulse);
    target.impulse = updated;
  }
  if (change == 0.0) return residual;
  // sum_i M^-1 J_i^T dlambda_i = M^-1 e_k dP: the first row's response scaled.
  Space::add(rows.state(r), change / s[0], x);
  return residual;
}

bool isBilateralRow(const ConstraintRow& row, const RowSolverState& s) {
  return row.tie < 0 && s.inv_k > 0.0 && row.lo == -std::numeric_limits<double>::infinity() &&
         row.hi == std::numeric_limits<double>::infinity();
}

// Gathers the bilateral rows into the block, builds A = J_B M^-1 J_B^T + diag(cfm) (lower triangle) and
// factors it in place, A = L D L^T without pivoting (A is symmetric positive semidefinite). A row whose
// pivot shows it dependent on the rows before it (row_pgs.hpp) gets a zero column in L and D^-1 = 0, so
// that the factor is that of the other rows and its change is zero; it leaves the solve (inv_k = 0, zero
// impulse). Returns n.
template <class Space>
int setUpBilateralBlock(RowSet& rows, BilateralBlock& block) {
  block.rows.clear();
  for (int r = 0; r < rows.size(); ++r) {
    if (isBilateralRow(rows[r], rows.state(r))) block.rows.push_back(r);
  }
  const int n = static_cast<int>(block.rows.size());
  block.factor.resize(static_cast<std::size_t>(n) * n);
  block.residual.resize(static_cast<std::size_t>(n));
  double* F = block.factor.data();
  double largest = 0.0;
  for (int j = 0; j < n; ++j) {
    const ConstraintRow& row_j = rows[block.rows[j]];
    const RowSolverState& s_j = rows.state(block.rows[j]);
    for (int k = 0; k < j; ++k) F[j * n + k] = Space::blockCoupling(row_j, s_j, rows.state(block.rows[k]));
    F[j * n + j] = Space::coupling(row_j, s_j, s_j) + row_j.cfm;
    largest = std::max(largest, F[j * n + j]);
  }
  // Row by row, with u_k = L_jk D_k kept aside so that each term is one multiply-add:
  //   u_k = A_jk - sum_{i<k} u_i L_ki,   L_jk = u_k D_k^-1,   D_j = A_jj - sum_{i<j} u_i L_ji.
  // The diagonal holds D^-1 as soon as a row is done (0 for a dependent row, whose u and L are then 0).
  double* u = block.residual.data();  // scratch here; the sweeps overwrite it
  for (int j = 0; j < n; ++j) {
    double* L_j = F + j * n;
    for (int k = 0; k < j; ++k) {
      const double* L_k = F + k * n;
      double even = L_j[k], odd = 0.0;  // two sums: one would wait on each subtraction in turn
      int i = 0;
      for (; i + 1 < k; i += 2) {
        even -= u[i] * L_k[i];
        odd -= u[i + 1] * L_k[i + 1];
      }
      if (i < k) even -= u[i] * L_k[i];
      const double a = even + odd;
      u[k] = L_k[k] == 0.0 ? 0.0 : a;
      L_j[k] = u[k] * L_k[k];
    }
    const double diagonal = L_j[j];
    double d = diagonal;
    for (int i = 0; i < j; ++i) d -= u[i] * L_j[i];
    // Written so that a NaN pivot counts as dependent too.
    const bool independent = d > 1e-10 * diagonal && d > 1e-14 * largest;
    L_j[j] = independent ? 1.0 / d : 0.0;
    if (!independent) {
      for (int i = 0; i < j; ++i) L_j[i] = 0.0;
    }
    RowSolverState& state = rows.state(block.rows[j]);
    state.visit = independent ? RowSolverState::Visit::Block : RowSolverState::Visit::Alone;
    if (!independent) {
      state.inv_k = 0.0;
      rows[block.rows[j]].impulse = 0.0;
    }
  }
  return n;
}

// One update of the block (row_pgs.hpp) on v, the Space's coordinates; returns the largest residual |w|
// of its rows before it, which is complementarityResidual's value for unbounded rows.
template <class Space>
double updateBilateralBlock(RowSet& rows, BilateralBlock& block, int n, double* v) {
  const double* F = block.factor.data();
  double* x = block.residual.data();
  double residual = 0.0;
  for (int j = 0; j < n; ++j) {
    const RowSolverState& s = rows.state(block.rows[j]);
    x[j] = rowResidual<Space>(rows[block.rows[j]], s, v);
    if (s.visit == RowSolverState::Visit::Block) residual = std::max(residual, std::abs(x[j]));
  }
  // x = A^-1 w (L y = w, z = D^-1 y, L^T x = z), in place; the block's change is -x.
  for (int j = 0; j < n; ++j) {
    for (int k = 0; k < j; ++k) x[j] -= F[j * n + k] * x[k];
  }
  for (int j = 0; j < n; ++j) x[j] *= F[j * n + j];
  for (int j = n - 1; j >= 0; --j) {
    for (int k = j + 1; k < n; ++k) x[j] -= F[k * n + j] * x[k];
  }
  for (int j = 0; j < n; ++j) {
    if (x[j] == 0.0) continue;  // a dependent row
    rows[block.rows[j]].impulse -= x[j];
    Space::add(rows.state(block.rows[j]), -x[j], v);
  }
  return residual;
}

// The largest residual |w| of the block's rows at v, the Space's coordinates.
template <class Space>
double blockResidual(const RowSet& rows, const BilateralBlock& block, int n, const double* v) {
  double residual = 0.0;
  for (int j = 0; j < n; ++j) {
    const RowSolverState& s = rows.state(block.rows[j]);
    if (s.visit == RowSolverState::Visit::Block) residual = std::max(residual, std::abs(rowResidual<Space>(rows[block.rows[j]], s, v)));
  }
  return residual;
}

// The solve of row_pgs.hpp in the coordinates x of Space, from x (v, or z = L v) on.
template <class Space>
PgsReport solveIn(RowSet& rows, double* x, const PgsSettings& settings) {
  PgsReport report;
  for (int r = 0; r < rows.size(); ++r) {
    ConstraintRow& row = rows[r];
    RowSolverState& s = rows.state(r);
    const double K = Space::coupling(row, s, s) + row.cfm;
    s.inv_k = K > 0.0 ? 1.0 / K : 0.0;  // a row that no velocity can move is left out
    s.visit = RowSolverState::Visit::Alone;
    s.next_on_coordinate = -1;
    if (!settings.warm_start || s.inv_k == 0.0) row.impulse = 0.0;
  }
  BilateralBlock& block = rows.bilateralBlock();
  const int block_size = settings.bilateral_block ? setUpBilateralBlock<Space>(rows, block) : 0;
  if (settings.coordinate_groups) {
    for (int r = 0; r < rows.size(); ++r) {
      RowSolverState& first = rows.state(r);
      if (first.visit != RowSolverState::Visit::Alone || !isCoordinateRow(rows[r], first)) continue;
      int last = r, m = 1;
      for (int i = r + 1; i < rows.size() && m < kMaxCoordinateRows; ++i) {
        RowSolverState& s = rows.state(i);
        if (s.j_begin != first.j_begin || s.visit != RowSolverState::Visit::Alone || !isCoordinateRow(rows[i], s)) continue;
        s.visit = RowSolverState::Visit::CoordinateMember;
        rows.state(last).next_on_coordinate = i;
        last = i;
        ++m;
      }
      if (m > 1) first.visit = RowSolverState::Visit::CoordinateFirst;
    }
  }
  for (int r = 0; r < rows.size(); ++r) {
    ConstraintRow& row = rows[r];
    if (row.impulse == 0.0) continue;
    double lo, hi;
    bounds(rows, row, lo, hi);
    row.impulse = std::clamp(row.impulse, lo, hi);
    Space::add(rows.state(r), row.impulse, x);
  }
  // With the block's rows the only ones to solve, a sweep is the block's exact solve: its rows' residuals
  // right after it, not a second sweep, say whether rounding left more than the tolerance.
  bool block_only = block_size > 0;
  for (int r = 0; r < rows.size(); ++r) {
    if (rows.state(r).visit != RowSolverState::Visit::Block && rows.state(r).inv_k > 0.0) block_only = false;
  }
  for (int it = 1; it <= settings.max_iterations; ++it) {
    double residual = block_size > 0 ? updateBilateralBlock<Space>(rows, block, block_size, x) : 0.0;
    for (int r = 0; r < rows.size(); ++r) {
      ConstraintRow& row = rows[r];
      const RowSolverState& s = rows.state(r);
      if (s.visit != RowSolverState::Visit::Alone) {
        if (s.visit == RowSolverState::Visit::CoordinateFirst) {
          residual = std::max(residual, updateCoordinate<Space>(rows, r, x, settings.omega));
        }
        continue;
      }
      if (s.inv_k == 0.0) continue;
      double lo, hi;
      bounds(rows, row, lo, hi);
      // Bounds closed at the impulse (a friction row whose normal row pushes nothing): the row is settled
      // (zero residual, no change) whatever its velocity, which need not be read.
      if (lo == hi && row.impulse == lo) continue;
      const double w = rowResidual<Space>(row, s, x);
      residual = std::max(residual, complementarityResidual(row.impulse, w, s.inv_k, lo, hi));
      const double updated = std::clamp(row.impulse - settings.omega * w * s.inv_k, lo, hi);
      if (updated == row.impulse) continue;  // common: a row held at a bound
      Space::add(s, updated - row.impulse, x);
      row.impulse = updated;
    }
    if (block_only) residual = blockResidual<Space>(rows, block, block_size, x);
    report.iterations = it;
    report.residual = residual;
    if (residual <= settings.tolerance) return report;
  }
  // Hitting the cap is routine in real-time stepping, so it is a debug report, not a warning.
  logger()->debug("abdyn::solveRowsPgs: {} rows, residual {:.3g} after {} sweeps (tolerance {:.3g}, omega {})",
                  rows.size(), report.residual, report.iterations, settings.tolerance, settings.omega);
  return report;
}

constexpr int kZeroBlock = 8;

// Whether x[0 .. kZeroBlock) are all zero (-0 included): one test of the entries' bits without their signs,
// which the compiler vectorises, where a test per entry would branch on each. Rows are mostly zeros.
bool zeroBlock(const double* x) {
  std::uint64_t bits = 0;
  for (int i = 0; i < kZeroBlock; ++i) {
    std::uint64_t b;
    std::memcpy(&b, x + i, sizeof b);
    bits |= b << 1;
  }
  return bits == 0;
}

// J is zero outside [j_begin, j_end): the sweeps read it there only.
void findNonzeroSpan(const ConstraintRow& row, RowSolverState& s) {
  const double* J = row.J.data();
  int begin = 0, end = static_cast<int>(row.J.size());
  while (end - begin >= kZeroBlock && zeroBlock(J + begin)) begin += kZeroBlock;
  while (begin < end && J[begin] == 0.0) ++begin;
  while (end - begin >= kZeroBlock && zeroBlock(J + end - kZeroBlock)) end -= kZeroBlock;
  while (end > begin && J[end - 1] == 0.0) --end;
  s.j_begin = begin;
  s.j_end = end;
}

// Y = L^-T J^T, D^-1 Y and their support for rows first .. first + count - 1, which share their nonzero span
// (solved together: internal::solveLTransposedSpan). L^-T carries an entry only towards the root, so Y is
// nonzero only on the root paths of J's nonzeros: few coordinates for a contact or a joint row in a branched
// tree, and everything here runs over them (from the lowest coordinate the solve reaches to j_end), never
// over all nv. Y and D^-1 Y are zero outside the support between calls (RowSet::add clears a reused
// row's), so only the last support needs clearing. Runs closer than kGap coordinates are merged (a short
// loop over zeros is cheaper than another run); past the last run slot the rest is one run.
void prepareInFactorCoordinates(const Model& model, const Data& data, RowSet& rows, int first, int count) {
  constexpr int kGap = 4;
  double* Y[internal::kMaxSpanSolves] = {};
  for (int i = 0; i < count; ++i) {
    const ConstraintRow& row = rows[first + i];
    RowSolverState& s = rows.state(first + i);
    const int nv = static_cast<int>(row.J.size());
    if (s.Y.size() != nv || s.Dinv_Y.size() != nv) {  // a row's first solve in these coordinates
      s.Y.setZero(nv);
      s.Dinv_Y.setZero(nv);
    } else {
      for (int r = 0; r < s.support_runs; ++r) {
        const int start = s.support[r].first, length = s.support[r].last - start + 1;
        s.Y.segment(start, length).setZero();
        s.Dinv_Y.segment(start, length).setZero();
      }
    }
    s.support_runs = 0;
    s.Y.segment(s.j_begin, s.j_end - s.j_begin) = row.J.segment(s.j_begin, s.j_end - s.j_begin);
    Y[i] = s.Y.data();
  }
  const RowSolverState& shared = rows.state(first);
  if (shared.j_begin == shared.j_end) return;
  const int lowest = internal::solveLTransposedSpan(model, data, Y, count, shared.j_begin, shared.j_end);
  for (int i = 0; i < count; ++i) {
    RowSolverState& s = rows.state(first + i);
    for (int k = lowest; k < s.j_end; ++k) {
      if (s.j_end - k >= kZeroBlock && zeroBlock(s.Y.data() + k)) {
        k += kZeroBlock - 1;
        continue;
      }
      if (s.Y[k] == 0.0) continue;
      DofRun* last = s.support_runs > 0 ? &s.support[s.support_runs - 1] : nullptr;
      if (last != nullptr && (k - last->last <= kGap || s.support_runs == RowSolverState::kMaxSupportRuns)) {
        last->last = k;
      } else {
        s.support[s.support_runs++] = DofRun{k, k};
      }
    }
    // D^-1 Y on the support only (the divisions are most of this loop's time on short supports).
    for (int r = 0; r < s.support_runs; ++r) {
      for (int k = s.support[r].first; k <= s.support[r].last; ++k) s.Dinv_Y[k] = s.Y[k] / data.factor_D[k];
    }
  }
}

}  // namespace

PgsReport solveRowsPgs(RowSet& rows, Eigen::VectorXd& v, const PgsSettings& settings) {
  checkSettings(rows, v, settings);
  for (int r = 0; r < rows.size(); ++r) findNonzeroSpan(rows[r], rows.state(r));
  return solveIn<VelocitySpace>(rows, v.data(), settings);
}

PgsReport solveRowsPgs(const Model& model, const Data& data, RowSet& rows, Eigen::VectorXd& v,
                       const PgsSettings& settings) {
  internal::checkData(model, data, "abdyn::solveRowsPgs");
  internal::checkDynamics(model, "abdyn::solveRowsPgs");
  checkSettings(rows, v, settings);
  if (v.size() != model.nv()) {
    throw InvalidArgument("abdyn::solveRowsPgs: v has " + std::to_string(v.size()) + " entries, model '" + model.name() +
                          "' has nv = " + std::to_string(model.nv()));
  }
  if (!(data.factor_D.size() == model.nv() && (data.factor_D.array() > 0.0).all())) {
    throw InvalidArgument("abdyn::solveRowsPgs: data holds no factor of the mass matrix of model '" + model.name() +
                          "' (run factorizeMassMatrix or forwardDynamicsCrba at the rows' configuration first)");
  }
  for (int r = 0; r < rows.size(); ++r) findNonzeroSpan(rows[r], rows.state(r));
  // Rows in a row with the same span (a contact point's normal and friction rows, a joint's rows) together.
  for (int r = 0; r < rows.size();) {
    int count = 1;
    while (count < internal::kMaxSpanSolves && r + count < rows.size() &&
           rows.state(r + count).j_begin == rows.state(r).j_begin && rows.state(r + count).j_end == rows.state(r).j_end) {
      ++count;
    }
    prepareInFactorCoordinates(model, data, rows, r, count);
    r += count;
  }
  internal::multiplyByL(model, data, v);  // v becomes z = L v, and back below
  const PgsReport report = solveIn<FactorSpace>(rows, v.data(), settings);
  internal::solveL(model, data, v);
  return report;
}

}  // namespace abdyn
