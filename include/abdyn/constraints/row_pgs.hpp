#pragma once
// Projected Gauss-Seidel with successive over-relaxation on the rows' bounded MLCP (see rows.hpp).
// Row by row, with K = J M^-1 J^T + cfm and the row's current residual w = J v - target + cfm lambda:
//   lambda <- clamp(lambda - omega w / K, lo, hi),   v <- v + M^-1 J^T (lambda_new - lambda_old)
// so v stays v_free + M^-1 J^T lambda throughout. omega = 1 is plain PGS; omega in (1, 2) over-relaxes,
// which speeds up long chains of coupled rows. A friction row's bounds are +-mu times its normal row's
// current impulse. The residual of row i is K |lambda - clamp(lambda - w / K, lo, hi)| (a velocity,
// zero exactly when the row's complementarity conditions hold); a sweep's residual is the largest.
//
// Coordinate groups: rows whose J has one nonzero entry, on the same coordinate k, with fixed bounds and
// no cfm (a joint's limit, friction and motor rows) are updated together by the exact solution of their
// joint problem with the other impulses held (u = v_k against the sum of their impulses, piecewise
// linear), then relaxed by omega and clamped. Row by row they would share the one velocity v_k, and when
// their targets differ (a limit pushing out, friction holding at zero) each sweep would pass impulse
// from one to the other by about K^-1 times that difference: the residual stalls at it for thousands of
// sweeps. Each row's residual is still reported as above.

#include "abdyn/constraints/rows.hpp"
#include "abdyn/error.hpp"

namespace abdyn {

struct PgsSettings {
  int max_iterations = 100;  // sweeps over all rows
  double tolerance = 1e-6;   // stop when a sweep's residual (m/s or rad/s) is at most this
  double omega = 1.0;        // relaxation, in (0, 2)
  bool warm_start = true;    // start from the rows' impulses (else from zero)
  bool coordinate_groups = true;  // solve one coordinate's joint rows together (else row by row, as before)
};

struct PgsReport {
  int iterations = 0;     // sweeps done
  double residual = 0.0;  // residual of the last sweep
};

/// Solves the rows for the impulses, starting from v = v_free, leaving v = v_free + M^-1 J^T lambda.
/// Needs every row's Minv_Jt (RowResponse). Throws abdyn::InvalidArgument on bad settings or a tie
/// to a row that does not exist.
PgsReport solveRowsPgs(RowSet& rows, Eigen::VectorXd& v, const PgsSettings& settings);

}  // namespace abdyn
