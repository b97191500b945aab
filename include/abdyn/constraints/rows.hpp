#pragma once
/// @file
/// Constraint rows at the velocity (impulse) level, acting on a tree's generalized velocities.
///
/// A row is one scalar condition on the velocity after the step, v+ = v_free + M^-1 J^T lambda:
///   w = J v+ - target + cfm * lambda,   lo <= lambda <= hi,
///   w >= 0 where lambda = lo,  w <= 0 where lambda = hi,  w = 0 in between (a bounded MLCP).
/// J (1 x nv) is the rate of a position error C (dC/dt = J v); target is the velocity bias:
///   Baumgarte / ERP  target = -(erp / h) C          (bilateral rows, and unilateral rows that penetrate)
///   predicted error  target = -C / h when C > 0     (a unilateral gap C may close within the step, no more)
///   restitution      target = -e J v when J v < -threshold
/// cfm softens the row (lambda = -w / cfm at the fixed point, a spring-damper); a friction row is tied to
/// its normal row and bounded by +-mu times that row's impulse. Rows keep their impulse for warm starting.
///
/// Linear 1D rows: the velocity of a point along a direction, both in world coordinates; angular 1D rows:
/// the angular velocity about an axis. Each compares body A with body B (either may be the world, body 0):
///   J v = n . (v_A(p) - v_B(p))   or   J v = a . (w_A - w_B).
/// Both are a world-frame wrench f paired with body motions: J v = f . (V_A - V_B), with V the bodies' spatial
/// velocities in world coordinates and f = [p x n; n] (linear) or [a; 0] (angular). Per coordinate k,
/// J[k] = f . S_world_k (Data::S_world: k's motion-subspace column in world coordinates) on A's path to the
/// root, minus the same on B's path: 6 multiply-adds per coordinate, and the coordinates above the common
/// ancestor of A and B, which move both alike, stay exactly zero.
///
/// The builders (here and in row_joints.hpp, row_contacts.hpp) read data.S_world, so they need
/// forwardKinematics and then jointJacobians (jacobian.hpp); S_world left from an earlier X_body_world, or never
/// filled, is an abdyn::InvalidArgument naming jointJacobians, never a wrong J.

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "abdyn/model/data.hpp"

namespace abdyn {

/// One scalar velocity constraint J v = target within impulse bounds (see the file comment): the row's
/// definition, written by the builders, and its impulse. The solver's per-row state is a RowSolverState
/// in the same RowSet.
struct ConstraintRow {
  Eigen::VectorXd J;          ///< nv: the row's velocity is J.dot(v)
  double target = 0.0;        ///< the velocity bias the row drives J v to
  double cfm = 0.0;           ///< softness (constraint force mixing), >= 0
  double lo = -std::numeric_limits<double>::infinity();  ///< lower impulse bound
  double hi = std::numeric_limits<double>::infinity();   ///< upper impulse bound
  int tie = -1;               ///< friction: index of the normal row whose impulse bounds this one
  double mu = 0.0;            ///< friction: bounds are +-mu * impulse of row `tie`
  double impulse = 0.0;       ///< accumulated impulse lambda (warm start in, solution out)
  double error = 0.0;         ///< position error C (unilateral: the gap, negative when violated)
  bool unilateral = false;    ///< error is a gap (only negative values violate)
  std::int64_t key = -1;      ///< identity across steps for warm starting (-1: none)
};

/// What the solver (row_response.hpp, row_pgs.hpp) writes for one row: its response and how the sweeps
/// visit it. Kept in the RowSet beside the row, sized once, read and written by the solver alone.
struct RowSolverState {
  static constexpr int kMaxSupportRuns = 6;  ///< capacity of `support`

  Eigen::VectorXd Minv_Jt;    ///< nv: M^-1 J^T (RowResponse)
  /// In the factor's coordinates z = L v of M = L^T D L (row_pgs.hpp): the row there, Y = L^-T J^T (its
  /// velocity is Y.dot(z)), and its response D^-1 Y; both are zero outside `support`, the coordinates on
  /// the root paths of J's nonzeros, as runs (first, last) in ascending order.
  Eigen::VectorXd Y;
  Eigen::VectorXd Dinv_Y;     ///< nv: D^-1 Y, the row's response in the factor's coordinates
  DofRun support[kMaxSupportRuns] = {};  ///< runs of coordinates outside which Y and Dinv_Y are zero
  int support_runs = 0;       ///< runs used in `support`
  double inv_k = 0.0;         ///< 1 / (J M^-1 J^T + cfm)
  ///@{
  int j_begin = 0, j_end = 0;  ///< J is zero outside [j_begin, j_end)
  ///@}
  /// How the solver's sweeps visit a row: alone, as the first or a later row of a coordinate group
  /// (row_pgs.hpp), whose rows are linked in order by next_on_coordinate (-1 ends it), or within the
  /// direct block of bilateral rows (row_pgs.hpp).
  enum class Visit { Alone, CoordinateFirst, CoordinateMember, Block };
  Visit visit = Visit::Alone;  ///< how the solver's sweeps visit this row
  int next_on_coordinate = -1;  ///< the next row of the same coordinate group (-1: the last)
};

/// The solver's storage for its direct block of bilateral rows (row_pgs.hpp), kept with the rows so that
/// solving as many rows again allocates nothing. Sized by the solver, which alone reads it.
struct BilateralBlock {
  std::vector<int> rows;         ///< the block's rows, in row order
  std::vector<double> factor;    ///< n x n row-major: L (unit, strictly lower), D^-1 on the diagonal
  std::vector<double> residual;  ///< n: the rows' w, then the block's impulse change
};

/// A growable list of rows for one model, with the solver's state of each row and the impulses kept
/// for warm starting; rows are reused between clear() calls, so building the same number of rows again
/// allocates nothing.
class RowSet {
 public:
  /// An empty set for `model` (rows of nv entries).
  explicit RowSet(const Model& model) : nv_(model.nv()) {}

  /// Empties the set, keeping the rows' storage and the kept impulses.
  void clear() { size_ = 0; }
  /// Drops the rows from index `count` on (count in [0, size()]), keeping their storage, as clear() does all.
  void truncate(int count) { size_ = count < 0 ? 0 : (count < size_ ? count : size_); }
  /// Number of rows.
  int size() const { return size_; }
  ///@{
  /// Row i (0 .. size() - 1; not checked).
  ConstraintRow& operator[](int i) { return rows_[i]; }
  const ConstraintRow& operator[](int i) const { return rows_[i]; }
  ///@}
  ///@{
  /// The solver's state of row i (0 .. size() - 1; not checked).
  RowSolverState& state(int i) { return states_[i]; }
  const RowSolverState& state(int i) const { return states_[i]; }
  ///@}
  /// Appends a bilateral row with J = 0, target = 0, cfm = 0, impulse = 0 and no tie.
  ConstraintRow& add();
  /// Sizes the storage for `count` rows (their vectors included) and as many kept impulses, so that
  /// building and solving that many rows allocates nothing; leaves the set empty.
  void reserve(int count);
  /// The solver's storage for its direct block of bilateral rows.
  BilateralBlock& bilateralBlock() { return block_; }

  /// Keeps each keyed row's impulse (key >= 0) for warmStart, forgetting those kept before.
  void keepImpulses();
  /// Sets each row's impulse to the one kept for its key, zero when none was.
  void warmStart();
  /// Forgets the kept impulses.
  void forgetImpulses() { kept_.clear(); }

 private:
  int nv_;
  int size_ = 0;
  std::vector<ConstraintRow> rows_;
  std::vector<RowSolverState> states_;
  BilateralBlock block_;
  std::vector<std::pair<std::int64_t, double>> kept_;  // (key, impulse), sorted by key
};

/// J += sign * f^T J_body: the power of the world-frame wrench f (about the world origin) on body
/// `body`'s motion, per velocity coordinate. Needs data.S_world (forwardKinematics, jointJacobians); throws
/// abdyn::InvalidArgument on a body outside the model or a stale S_world. O(depth).
void addWrenchToRow(const Model& model, const Data& data, int body, const Force& f_world, double sign,
                    Eigen::VectorXd& J);

/// A linear 1D row n . (v_A(p) - v_B(p)) at world point p along world direction n. Needs data.S_world
/// (forwardKinematics, jointJacobians) and throws like addWrenchToRow.
ConstraintRow& addLinearRow(RowSet& rows, const Model& model, const Data& data, int body_a, int body_b,
                            const Vector3& p_world, const Vector3& n_world);
/// An angular 1D row a . (w_A - w_B) about world axis a. Needs data.S_world like addLinearRow.
ConstraintRow& addAngularRow(RowSet& rows, const Model& model, const Data& data, int body_a, int body_b,
                             const Vector3& a_world);

/// The most rows addPairRows builds in one call (the six of a weld joint).
constexpr int kMaxPairRows = 6;
/// Up to kMaxPairRows rows between body_a and body_b at once, row r the power of the world-frame wrench
/// f_world[r] (about the world origin) on A's motion less B's: the rows addLinearRow and addAngularRow
/// build one by one (bit for bit), with one walk up the two root paths for all of them (a joint's rows).
/// Returns the index of the first; the rows' other fields are add()'s. Throws abdyn::InvalidArgument
/// like addWrenchToRow, and on count outside [1, kMaxPairRows].
int addPairRows(RowSet& rows, const Model& model, const Data& data, int body_a, int body_b, const Force* f_world,
                int count);

/// The target of a unilateral row with gap C (>= 0 allowed): close at most the gap within the step
/// (predicted error, -C / h) while apart; push out at the ERP rate (-(erp / h) C) once penetrating.
inline double unilateralTarget(double gap, double erp, double h) { return gap > 0.0 ? -gap / h : -(erp / h) * gap; }

/// Two unit vectors completing n (unit) to a right-handed orthonormal basis (t1, t2, n).
void orthonormalComplement(const Vector3& n, Vector3& t1, Vector3& t2);

}  // namespace abdyn
