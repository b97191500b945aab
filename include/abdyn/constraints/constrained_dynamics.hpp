#pragma once
/// @file
/// Forward dynamics of a tree with loop closures and joint couplings (loop_closure.hpp), by Lagrange
/// multipliers at the acceleration level:
///   M qdd + h(q, v) = tau + G^T lambda,      G qdd = rhs = gamma - a G v - b C
/// with gamma = -Gdot v (so that G qdd = gamma keeps G v = 0) and a, b the drift feedback chosen by
/// ConstrainedDynamicsSettings::stabilisation (below). The impulse-level twin (the reference notes'
/// Gamma lambda = eta) follows from integrating over an instant; here Gamma = G M^-1 G^T and
/// eta = rhs - G qdd0 with qdd0 the unconstrained acceleration, so lambda solves Gamma lambda = eta and
/// qdd = qdd0 + M^-1 G^T lambda. constrainedImpact() is that system at the impulse level.
///
/// Stabilisation (a, b) of the drift of C, with h the integrator's time step where one is needed:
///   Baumgarte       a = 2 alpha, b = beta^2: C'' + 2 alpha C' + beta^2 C = 0 (critically damped when
///                   alpha = beta); alpha = beta = 0 is no stabilisation (the default).
///   ErrorReduction  a = 1/h, b = beta_erp/h^2, beta_erp = 1 - (1 - ERP)^(1/n), n = 1/h: ERP is the
///                   fraction of C removed per second, beta_erp the fraction removed per step (n steps
///                   remove ERP). Derivation: the notes ask for G v_next = -(beta_erp/h) C at the velocity
///                   level; semi-implicit Euler gives G v_next = G v + h (G qdd - gamma), so
///                   G qdd = gamma - G v/h - beta_erp C/h^2, and then C_next = C + h G v_next =
///                   (1 - beta_erp) C to first order.
///   PredictedError  a = 1/h, b = 1/(2 h^2): the next-step error e = C + h G v vanishes after one
///                   semi-implicit Euler step: e_next = C_next + h G v_next = C + 2 h G v_next with
///                   G v_next = G v + h (G qdd - gamma), so G qdd = gamma - G v/h - C/(2 h^2) (C itself
///                   then halves each step).
/// CFM (constraint force mixing) adds cfm 1 to Gamma in any of them: soft constraints, regular Gamma.
///
/// Three solvers that must agree (ConstrainedSolver::Automatic, the default, picks Factorized or Articulated
/// by the shape of the tree):
///   Direct       the KKT system [M -G^T; G cfm 1] [qdd; lambda] = [tau - h; rhs] from CRBA, dense.
///   Articulated  ABA for qdd0, then each column of M^-1 G^T by articulated-body propagation (O(n) per
///                row, no mass matrix), then the m x m system for lambda.
///   Factorized   one RNEA pass for the bias h and the kinematics of the closures, CRBA on the same joint
///                transforms, the tree-sparse factor M = L^T D L (crba.hpp), then with Y = L^-T G^T:
///                  Gamma = Y^T D^-1 Y,   G qdd0 = Y^T D^-1 b~,   qdd = L^-1 D^-1 (b~ + Y lambda),
///                where b~ = L^-T (tau - h). Column r of Y is nonzero only on the coordinates that move
///                row r's bodies (L^-T maps a vector on a set of root paths into the same set), so a
///                closure at a foot costs the foot's path, not the tree: a sparse Schur complement of
///                the KKT system. The fastest of the three on robots of modest depth.
/// Gamma is factorised by Cholesky when it is numerically regular (every pivot above rank_tolerance times
/// its largest diagonal entry; rank m). Redundant closures (a planar loop closed by a 3-D revolute joint)
/// make Gamma singular: then the solvers fall back to a rank-revealing complete orthogonal decomposition,
/// report the rank and take the minimum-norm multipliers (qdd is unique either way); constraints that
/// cannot all hold throw abdyn::Error. The minimum-norm solve applies the factorisation's reflectors in
/// the workspace below, so that nothing here allocates once ConstrainedDynamicsData is built (Eigen's own
/// solve() makes heap temporaries).

#include <Eigen/QR>

#include "abdyn/algorithms/dynamics_options.hpp"
#include "abdyn/constraints/loop_closure.hpp"
#include "abdyn/constraints/row_response.hpp"

namespace abdyn {

namespace internal {
struct ConstrainedWorkspaceAccess;  // the solvers' access to ConstrainedDynamicsData's workspace (src/constraints/)
}  // namespace internal

/// Automatic: Factorized when the mass matrix's factor is sparse next to the tree (nnz(L) at most 20 times
/// the number of bodies, as for RowResponse::choose), else Articulated (long chains).
enum class ConstrainedSolver { Automatic, Direct, Articulated, Factorized };

/// How the acceleration-level rhs feeds back the drift of C (formulas above).
enum class Stabilisation { Baumgarte, ErrorReduction, PredictedError };

/// How forwardDynamicsConstrained solves and stabilises (formulas above).
struct ConstrainedDynamicsSettings {
  ConstrainedSolver solver = ConstrainedSolver::Automatic;  ///< which solver (see ConstrainedSolver)
  Stabilisation stabilisation = Stabilisation::Baumgarte;  ///< how the drift of C is fed back
  double baumgarte_alpha = 0.0;  ///< Baumgarte: velocity feedback (1/s), rhs -= 2 alpha G v
  double baumgarte_beta = 0.0;   ///< Baumgarte: position feedback (1/s), rhs -= beta^2 C
  double erp = 0.2;              ///< ErrorReduction: fraction of C removed per second, in [0, 1]
  double time_step = 0.0;        ///< ErrorReduction, PredictedError: the integrator's step h (s), > 0
  double cfm = 0.0;              ///< constraint force mixing: Gamma + cfm 1 (softens, regularises)
  double rank_tolerance = 1e-10; ///< relative pivot threshold of the rank-revealing factorisation
  double consistency_tolerance = 1e-8;  ///< |Gamma lambda - eta| / (1 + |eta|) above this: inconsistent
  DynamicsOptions dynamics;      ///< the joint-space terms of M and of the bias (armature, damping)
};

/// Workspace and results of the constrained solvers for one model and constraint set.
class ConstrainedDynamicsData {
 public:
  /// Workspace sized for `model` and `constraints` (their rows m fixed here).
  ConstrainedDynamicsData(const Model& model, const ConstraintSet& constraints);

  ConstraintKinematics kinematics;  ///< C, G, gamma at the last call
  Eigen::VectorXd qdd;              ///< result of forwardDynamicsConstrained
  Eigen::VectorXd v_plus;           ///< result of constrainedImpact
  Eigen::VectorXd lambda;           ///< multipliers: G^T lambda is the generalized constraint force
  std::vector<Vector6> closure_wrench;  ///< per loop closure: the wrench [torque; force] on body b at Fb's
                                        ///< origin, in Fa's axes (body a feels the opposite); after
                                        ///< constrainedImpact, the impulse [N m s; N s]
  int rank = 0;                     ///< rank of the constraint system at the last call

 private:
  friend struct internal::ConstrainedWorkspaceAccess;
  /// The solvers' workspace, written on every call and read by them alone (m: rows of the constraints);
  /// the results above are what a caller reads.
  struct Workspace {
    Workspace(const Model& model, const ConstraintSet& constraints);
    Eigen::VectorXd qdd0;    ///< nv: the unconstrained acceleration M^-1 (tau - h)
    Eigen::VectorXd rhs;     ///< m: the acceleration-level right-hand side gamma - a G v - b C (stabilised)
    Eigen::VectorXd eta;     ///< m: the right-hand side of Gamma lambda = eta
    ///@{
    Eigen::VectorXd row, column;  ///< nv each: one row of G and the M^-1 column it gives
    ///@}
    Eigen::MatrixXd Minv_Gt;       ///< nv x m: M^-1 G^T (Direct and Articulated solvers)
    Eigen::MatrixXd Gamma;         ///< m x m: G M^-1 G^T + cfm 1
    Eigen::MatrixXd Gamma_factor;  ///< m x m: Gamma's Cholesky factor
    Eigen::MatrixXd kkt;           ///< (nv + m) x (nv + m): the Direct solver's KKT matrix [M -G^T; G cfm 1]
    Eigen::MatrixXd Yt;  ///< Factorized, 6 per group x nv: (L^-T G^T)^T with each group's rows padded to six
                         ///< (zero rows), zero off each group's support; column j: every row's entry at coordinate j
    ///@{
    /// Factorized: per group of rows (one closure, or one coupling) its first row, the coordinates that move
    /// its bodies (ascending, from group_coordinate_offset), and per pair of groups the runs of coordinates
    /// both move (the support of Gamma's block, from shared_run_offset).
    std::vector<int> group_first_row, group_coordinates, group_coordinate_offset;
    ///@}
    std::vector<DofRun> shared_runs;      ///< Factorized: the runs of coordinates shared by pairs of groups
    std::vector<int> shared_run_offset;   ///< Factorized: where each pair's runs start in shared_runs
    ///@{
    Eigen::VectorXd kkt_rhs, kkt_solution, kkt_residual;  ///< nv + m each: the KKT system's b, x and b - A x
    ///@}
    Eigen::VectorXd residual;  ///< m: eta - Gamma lambda, for the consistency check
    ///@{
    Eigen::VectorXd solve_work, solve_y;  ///< minimum-norm solves: max(nv, m) + m each
    ///@}
    ///@{
    /// Rank-revealing factorisations of Gamma, of the KKT matrix and of G (minimum-norm solves).
    Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> gamma_solver, kkt_solver, jacobian_solver;
    ///@}
    RowResponse response;  ///< M^-1 G^T by articulated-body propagation (Articulated solver)
  };
  Workspace work_;
};

/// qdd of the constrained system at (q, v, tau), into cd.qdd (and cd.lambda, cd.closure_wrench, cd.rank).
const Eigen::VectorXd& forwardDynamicsConstrained(const Model& model, Data& data, ConstrainedDynamicsData& cd,
                                                  const ConstraintSet& constraints, const Eigen::VectorXd& q,
                                                  const Eigen::VectorXd& v, const Eigen::VectorXd& tau,
                                                  const ConstrainedDynamicsSettings& settings = {});

/// The post-impact velocity v+ = v- + M^-1 G^T lambda of an impact that closes the constraints at q
/// (re-closing a loop, a collision), into cd.v_plus (and cd.lambda: the impulses, N s; cd.rank).
/// Impulse-level system (the notes' Gamma lambda = eta with no external impulse): G v+ = -e G v-
/// with restitution e in [0, 1], so Gamma lambda = -(1 + e) G v-. e = 0 gives the M-orthogonal
/// projection of v- onto G v = 0 (projectVelocities); e = 1 reverses G v and keeps the kinetic energy.
/// Solved by settings.solver like forwardDynamicsConstrained (Articulated: M^-1 G^T by articulated-body
/// propagation; Direct: the KKT system [M -G^T; G 0] [v+; lambda] = [M v-; -e G v-]); settings.cfm
/// softens it; the stabilisation settings are not used.
const Eigen::VectorXd& constrainedImpact(const Model& model, Data& data, ConstrainedDynamicsData& cd,
                                         const ConstraintSet& constraints, const Eigen::VectorXd& q,
                                         const Eigen::VectorXd& v_minus, double restitution,
                                         const ConstrainedDynamicsSettings& settings = {});

/// Post-stabilisation of positions (and assembly from a nearby guess): Gauss-Newton on the manifold,
/// q <- q (+) (-J^+ C) with J = dC/dq, until max |C| <= tolerance. Returns the iterations taken; throws
/// abdyn::Error naming the remaining error when max_iterations do not reach the tolerance.
int projectPositions(const Model& model, Data& data, ConstrainedDynamicsData& cd, const ConstraintSet& constraints,
                     Eigen::VectorXd& q, double tolerance = 1e-12, int max_iterations = 50);

/// Post-stabilisation of velocities: the M-orthogonal projection of v onto G v = 0,
/// v <- v - M^-1 G^T (G M^-1 G^T)^+ G v (the kinetic-energy-closest admissible velocity).
void projectVelocities(const Model& model, Data& data, ConstrainedDynamicsData& cd, const ConstraintSet& constraints,
                       const Eigen::VectorXd& q, Eigen::VectorXd& v, const DynamicsOptions& options = {});

}  // namespace abdyn
