#pragma once
/// @file
/// Transition Jacobians of one Simulator step (simulator.hpp) with its active set of rows held fixed
/// (docs/derivatives.md, section 8). With the state x = (q, v) perturbed in the tangent space (q by
/// integrate(q, dq), as StepJacobians) and the joint forces u = tau,
///   A = d x_next / d x   (2 nv x 2 nv, rows and columns ordered dq, dv)
///   B = d x_next / d u   (2 nv x nv)
/// of the map in which every row of the step keeps its role:
///   free     a row whose impulse lies strictly inside its bounds is an equality,
///            J_i(q) v+ - target_i(q) + cfm_i lambda_i = 0;
///   clamped  a row at a bound keeps that bound: lambda_i constant (limits and contacts at 0, motors and
///            joint friction at their effort bound), and a friction row at +-mu times its normal row's
///            impulse keeps that sign and moves with the normal impulse, lambda_i = +-mu lambda_n.
/// The rows that exist, their keys and which of them are free do not change: the Jacobian is that of the
/// smooth branch the step took, one-sided at a contact switch (a contact that opens, a row that reaches
/// its bound, sticking that turns to sliding), where the step itself is not differentiable; at a contact or
/// limit resting at C = 0 (the kink of its target) it takes the side of C's sign. It is the Jacobian of the
/// exact solution of the held-fixed system, not of the solver's approximate iterate: it matches finite
/// differences of Simulator::step as far as the solver has converged. Dependent free rows (a body resting on
/// more contacts than it has freedoms) are solved in the least-squares sense: exact when the dependency is
/// consistent (a flat box's four corners), and otherwise (a humanoid lying on the ground, whose contacts and
/// sticking joints over-determine v+ and let no held step exist once q moves) the limit of the step with its
/// free rows softened by cfm -> 0 (docs/derivatives.md, section 8).
///
/// Supported: one sub-step per step (substeps = 1), every row kind, implicit or explicit damping, either
/// response method. Refused with abdyn::InvalidArgument: substeps > 1 (the Simulator keeps only the last
/// sub-step's rows), and contact restitution > 0 (a target that switches on the approach speed).

#include <cstdint>
#include <memory>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/QR>

#include "abdyn/integrators/simulator.hpp"

namespace abdyn {
namespace internal {
struct PairRowDerivative;
}

/// The role of a row in the step's active set (see above).
enum class RowActivity { Free, AtLower, AtUpper };

/// A = d x_next / d x and B = d x_next / d tau of one Simulator step, its active set held fixed (see the file comment).
class SimulatorStepJacobians {
 public:
  /// Allocates A, B and the workspace for the simulator's model. step() allocates nothing once it has
  /// differentiated a step with as many rows and free rows (the row storage grows like RowSet's).
  explicit SimulatorStepJacobians(const Simulator& simulator);
  /// Movable (the workspace moves with it), not copyable.
  SimulatorStepJacobians(SimulatorStepJacobians&&) noexcept;
  /// Movable (the workspace moves with it), not copyable.
  SimulatorStepJacobians& operator=(SimulatorStepJacobians&&) noexcept;
  ~SimulatorStepJacobians();

  /// Takes one step of the simulator from its current (q, v, tau) by h, as simulator.step(h) does, and
  /// sets A, B and activity() for that step. Throws abdyn::InvalidArgument on a simulator of another model,
  /// h <= 0, substeps other than 1 or restitution > 0 with contacts (before stepping), and abdyn::Error when
  /// a body-contact row of the active set at degenerate geometry (the rows differentiated by rebuilds: a
  /// cylinder's rim point whose direction toward the other shape lies along its axis, a point on a cylinder's
  /// axis or tied between its side and cap; every body contact of a mesh or a capsule, whose GJK/EPA contact
  /// points are not differentiated analytically) is not built at a configuration perturbed by
  /// `configuration_step` (the step sits on a row's margin: a switch).
  const StepStatistics& step(Simulator& simulator, double h);

  /// The role of row r of `rows` (impulses set by a solve): at a bound when within
  /// tolerance * (1 + |bound|) of it, a friction row's bounds being +-mu times its normal row's impulse.
  static RowActivity activity(const RowSet& rows, int r, double tolerance);

  Eigen::MatrixXd A;  ///< 2 nv x 2 nv: d (q1, v1) / d (q, v), tangent coordinates
  Eigen::MatrixXd B;  ///< 2 nv x nv: d (q1, v1) / d tau
  /// The roles of simulator.rows() in the last differentiated step.
  const std::vector<RowActivity>& activity() const { return activity_; }

  double clamp_tolerance = 1e-9;      ///< see activity(); the solver's tolerance should be well below it
  double configuration_step = 1e-5;   ///< centred-difference step of the rebuilt rows' J(q) and targets (tangent units)
  /// Differentiate every row by centred differences of rebuilt rows, as body contacts at degenerate geometry
  /// always are, instead of the analytic derivatives: the reference those are tested against, and
  /// 2 nv row builds slower.
  bool rebuild_all_rows = false;

 private:
  void differentiateRows(const Simulator& simulator, double h);
  void differentiateTreeAndGroundRows(const Simulator& simulator, double h);
  bool differentiatePairRows(const Simulator& simulator, double h);
  void differentiateRebuiltRows(const Simulator& simulator, double h, bool all);
  void solveHeldSystem(const RowSet& rows);

  std::uint64_t model_key_;
  Data data_;                   ///< inverse-dynamics derivatives, then the kinematics of the perturbed rows
  RowSet rows_plus_, rows_minus_;
  BroadPhase broad_phase_;      ///< the body contacts' broad phase for the perturbed rows
  Eigen::VectorXd q0_, v0_, tau_, a_, q_pert_, dq_;
  Eigen::MatrixXd W_;           ///< M + h D (implicit damping) or M: the step's inertia
  Eigen::LLT<Eigen::MatrixXd> W_factor_;
  Eigen::MatrixXd R_;           ///< nv x 3 nv: right-hand side of W dv+ - J^T dlambda = R, then W^-1 R
  ///@{
  Eigen::MatrixXd Jq_, Jv_;     ///< integrate Jacobians at (q, v+, h)
  ///@}
  Eigen::MatrixXd Gq_;          ///< nv x nv: d (J(q)^T lambda) / dq at fixed lambda
  Eigen::MatrixXd Phi_q_;       ///< e x nv: d (J_i(q) v+ - target_i(q)) / dq of the free rows
  Eigen::MatrixXd Jt_T_;        ///< nv x e: J^T T, the impulse directions of the free unknowns
  Eigen::MatrixXd S_;           ///< e x e: J_E W^-1 J^T T + diag(cfm_E)
  ///@{
  Eigen::MatrixXd rhs_, dlambda_, dv_;  ///< e x 3 nv (the solve's workspace too), e x 3 nv, nv x 3 nv
  ///@}
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> S_factor_;
  /// Per body, world coordinates, over the ground contact rows of its subtree (the .cpp's glossary): the
  /// wrench F = sum lambda [p x d; d], M = sum lambda d and Q = sum (p m^T - (p . m) 1 - [m]x slide), m = lambda d;
  /// V the body's velocity at v+; loaded: a contact with an impulse in the subtree.
  std::vector<Vector6> F_, V_;
  std::vector<Vector3> M_;
  std::vector<Matrix3> Q_;
  std::vector<char> loaded_;
  std::unique_ptr<internal::PairRowDerivative> pair_;  ///< one pair row's geometry and its q derivatives
  std::vector<char> rebuilt_;   ///< per row: differentiated by rebuilds (a body contact at degenerate geometry)
  Eigen::VectorXd phi_plus_, phi_minus_, g_plus_, g_minus_;
  std::vector<int> free_;       ///< row index of each free unknown
  std::vector<int> unknown_;    ///< free unknown of each row (-1: clamped)
  std::vector<int> perm_;       ///< column permutation of the elimination
  std::vector<RowActivity> activity_;
};

}  // namespace abdyn
