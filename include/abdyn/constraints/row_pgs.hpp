#pragma once
/// @file
/// Projected Gauss-Seidel with successive over-relaxation on the rows' bounded MLCP (see rows.hpp).
/// Row by row, with K = J M^-1 J^T + cfm and the row's current residual w = J v - target + cfm lambda:
///   lambda <- clamp(lambda - omega w / K, lo, hi),   v <- v + M^-1 J^T (lambda_new - lambda_old)
/// so v stays v_free + M^-1 J^T lambda throughout. omega = 1 is plain PGS; omega in (1, 2) over-relaxes,
/// which speeds up long chains of coupled rows. A friction row's bounds are +-mu times its normal row's
/// current impulse. The residual of row i is K |lambda - clamp(lambda - w / K, lo, hi)| (a velocity,
/// zero exactly when the row's complementarity conditions hold); a sweep's residual is the largest.
///
/// Coordinate groups: rows whose J has one nonzero entry, on the same coordinate k, with fixed bounds and
/// no cfm (a joint's limit, friction and motor rows) are updated together by the exact solution of their
/// joint problem with the other impulses held (u = v_k against the sum of their impulses, piecewise
/// linear), then relaxed by omega and clamped. Row by row they would share the one velocity v_k, and when
/// their targets differ (a limit pushing out, friction holding at zero) each sweep would pass impulse
/// from one to the other by about K^-1 times that difference: the residual stalls at it for thousands of
/// sweeps. Each row's residual is still reported as above.
///
/// Bilateral block: the rows without bounds (lo = -inf, hi = +inf, no tie) that some velocity moves form
/// a block B, updated as one in each sweep (block Gauss-Seidel with the other rows) by the exact solution
/// of their joint problem with the other impulses held. With A = J_B M^-1 J_B^T + diag(cfm_B), built from
/// the rows' J and M^-1 J^T and factored A = L D L^T once per solve, and w_B the rows' residuals:
///   delta = -A^-1 w_B,   lambda_B <- lambda_B + delta,   v <- v + M^-1 J_B^T delta.
/// Row by row, rows coupled through light bodies (loop closures) are an ill-conditioned A, on which
/// Gauss-Seidel needs hundreds of sweeps; the direct solve does not care. With only bilateral rows one
/// sweep solves them and reports their residual after it (no second sweep). The block takes the full step:
/// omega relaxes the other rows only, as over-relaxing an exact solve would only overshoot it. Redundant rows:
/// a row whose pivot d_k falls to 1e-10 of its diagonal A_kk or 1e-14 of the largest one (the rows before
/// it span its J in the M^-1 metric, to that precision) leaves the solve with a zero impulse, so the
/// block's factor is that of its independent rows, which already hold its direction. Visited alone it
/// would fight them: a row whose J is rounding noise (the out-of-plane rows of a loop closed in a plane)
/// would hold its noise direction at full strength, as w / K does not depend on the size of J.

#include "abdyn/constraints/rows.hpp"
#include "abdyn/error.hpp"

namespace abdyn {

/// Settings of the projected Gauss-Seidel row solver.
struct PgsSettings {
  int max_iterations = 100;  ///< sweeps over all rows
  double tolerance = 1e-6;   ///< stop when a sweep's residual (m/s or rad/s) is at most this
  double omega = 1.0;        ///< relaxation, in (0, 2)
  bool warm_start = true;    ///< start from the rows' impulses (else from zero)
  bool coordinate_groups = true;  ///< solve one coordinate's joint rows together (else row by row)
  bool bilateral_block = true;    ///< solve the bilateral rows together, directly (else row by row)
};

/// What a solveRowsPgs call did.
struct PgsReport {
  int iterations = 0;     ///< sweeps done
  double residual = 0.0;  ///< residual of the last sweep
};

/// Solves the rows for the impulses, starting from v = v_free, leaving v = v_free + M^-1 J^T lambda.
/// Needs every row's RowSolverState::Minv_Jt (RowResponse). Allocates only when the rows' or the block's count exceeds
/// that of an earlier solve on the same RowSet. Throws abdyn::InvalidArgument on bad settings or a tie
/// to a row that does not exist.
PgsReport solveRowsPgs(RowSet& rows, Eigen::VectorXd& v, const PgsSettings& settings);

/// The same solve in the coordinates z = L v of the factor M = L^T D L that data holds
/// (factorizeMassMatrix, or forwardDynamicsCrba, at the rows' configuration), computing the rows'
/// responses itself (their RowSolverState's Y, Dinv_Y and support; Minv_Jt is neither needed nor set). With
/// v - v_free = L^-1 D^-1 L^-T J^T lambda, z - z_free = D^-1 Y lambda with Y = L^-T J^T and J v = Y . z:
/// a row reads and writes only the coordinates on the root paths of its bodies, not all nv, and preparing
/// a row costs one sparse L^-T solve instead of a full solve with M. v is mapped to z on entry and back on
/// exit (one multiplication by L, one dense L^-1 solve). Same iterates as above up to rounding. Throws
/// abdyn::InvalidArgument as above, and when v's size is not the model's nv or data holds no factor.
PgsReport solveRowsPgs(const Model& model, const Data& data, RowSet& rows, Eigen::VectorXd& v,
                       const PgsSettings& settings);

}  // namespace abdyn
