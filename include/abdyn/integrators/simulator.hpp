#pragma once
/// @file
/// Simulator: time stepping with constraint rows, Havok style. One step of length h (in `substeps` equal
/// parts) does, per part:
///   1. v_free = v + h a(q, v, tau)                       (ABA, or CRBA and the factor of M: see 3)
///      with the joint damping taken at the end of the step (implicit_damping, implicit_damping_euler.hpp):
///      a = (M + h D)^-1 (tau - C v - g - D v), and M + h D in place of M in 3 as well, so that the rows'
///      impulses act on the same velocity update and the damping stays stable at any h
///   2. rows at q: two-body joints, URDF limits, motors, joint friction, mimic couplings, ground contacts
///   3. projected Gauss-Seidel with SOR, the bilateral rows solved directly as one block:
///      v = v_free + M^-1 J^T lambda, either with M^-1 J^T per row by articulated-body propagation after
///      ABA, or in the coordinates z = L v of the L^T D L factor of M after CRBA (row_pgs.hpp), where a
///      row touches only its bodies' root paths; whichever the model makes cheaper
///   4. q = q (+) h v                                       (q[t+h] = q[t] + h S v[t+h], on the manifold)
/// The rows keep their impulses by key between steps to warm start the solver.

#include <cstdint>
#include <utility>
#include <vector>

#include "abdyn/algorithms/dynamics_options.hpp"
#include "abdyn/constraints/broad_phase.hpp"
#include "abdyn/constraints/row_contacts.hpp"
#include "abdyn/constraints/row_joints.hpp"
#include "abdyn/constraints/row_pgs.hpp"
#include "abdyn/constraints/row_response.hpp"
#include "abdyn/constraints/row_tree_joints.hpp"

namespace abdyn {

/// What a Simulator step includes (rows, contacts, damping) and how its row solver runs.
struct SimulatorSettings {
  PgsSettings solver;  ///<the projected Gauss-Seidel row solver
  int substeps = 1;  ///<sub-steps per step(h), each of length h / substeps
  double erp = 0.2;                ///< Baumgarte / ERP of bilateral rows and of limits once passed, per step
                                   ///< (each of n sub-steps uses 1 - (1 - erp)^(1/n); likewise contact.erp)
  double cfm = 0.0;                ///< softness of bilateral rows
  bool joint_limits = false;       ///< enforce the model's position limits as rows
  double limit_margin = 0.01;      ///< limit rows become active this close to a bound (rad or m)
  /// Cap on the speed (rad/s or m/s) at which a passed limit pushes its joint back (erp d / h for a limit passed
  /// by d): a joint starting far outside its range, as many files' default poses do, returns at this speed
  /// instead of being thrown at erp d / h (0.8 rad past at h = 2 ms: 80 rad/s).
  double limit_max_push_velocity = 1.0;
  bool joint_friction = true;      ///< Coulomb joint friction rows from Model::friction
  bool mimic = true;               ///< rows for Model::mimics
  bool ground = false;             ///< contacts with the plane z = contact.height
  bool body_contacts = false;      ///< contacts between collision shapes of different, non-adjacent bodies
  bool implicit_damping = true;    ///< joint damping at the end of each sub-step (step 1 above); false: explicit
  bool energy = true;              ///< StepStatistics::energy after each step (a kinematics pass); false: NaN
  GroundContactSettings contact;   ///< for ground and body contacts
  ResponseMethod response = ResponseMethod::Automatic;  ///< how M^-1 J^T is formed (row_response.hpp)
  DynamicsOptions dynamics;  ///<the joint-space terms of the dynamics (armature, damping)
};

/// What the last Simulator step did: solver effort, constraint error, rows, contacts, energy.
struct StepStatistics {
  int iterations = 0;          ///< solver sweeps, summed over sub-steps
  double residual = 0.0;       ///< largest final solver residual over sub-steps
  double constraint_error = 0.0;  ///< largest violation before the last sub-step's solve (bilateral |C|, unilateral max(0, -C))
  int rows = 0;                ///< rows of the last sub-step
  int contacts = 0;            ///< contact points (ground and bodies) of the last sub-step
  double energy = 0.0;         ///< kinetic + potential energy after the step (NaN without settings.energy)
};

/// Steps a model with constraint rows (joint limits, friction, mimic couplings, row joints, motors,
/// ground and body contacts) solved by projected Gauss-Seidel; owns its Model copy, Data and rows.
class Simulator {
 public:
  /// Starts at the neutral configuration, at rest, with zero joint forces. Keeps a copy of the model.
  explicit Simulator(Model model, const SimulatorSettings& settings = {});

  /// The model it steps (its own copy).
  const Model& model() const { return model_; }
  ///@{
  /// The settings, changeable between steps.
  SimulatorSettings& settings() { return settings_; }
  const SimulatorSettings& settings() const { return settings_; }
  ///@}

  Eigen::VectorXd q;    ///< configuration
  Eigen::VectorXd v;    ///< velocity
  Eigen::VectorXd tau;  ///< joint forces held over each step
  std::vector<RowJoint> joints;  ///< two-body joints made of rows
  std::vector<JointMotor> motors;  ///<velocity motors on tree joints, applied as rows

  /// Advances by h; throws abdyn::InvalidArgument on h <= 0 or bad sizes of q, v, tau, and abdyn::Error
  /// naming the model, the time and the coordinate when q or v turns non-finite (the simulation diverged).
  const StepStatistics& step(double h);
  /// Starts over at (q, v) and time 0 as a Simulator built now would, with its joints and motors kept:
  /// forgets the warm-start impulses and the statistics, keeps tau and the storage of the rows. Throws
  /// abdyn::InvalidArgument on sizes other than nq and nv. Allocation-free (rollout.hpp reuses one
  /// Simulator for many runs, which must not depend on what ran before).
  void reset(const Eigen::Ref<const Eigen::VectorXd>& q, const Eigen::Ref<const Eigen::VectorXd>& v);
  /// Sizes the row storage for the most rows a step can build with the current settings, joints and
  /// motors (every limit near a bound, every candidate contact point of every collision shape touching),
  /// so that no later step allocates. Without it the storage grows on the steps that first need more.
  void reserveRows();
  /// What the last step did.
  const StepStatistics& statistics() const { return statistics_; }
  /// The rows of the last sub-step (with their impulses). Their responses (RowSet::state) are those of
  /// the path taken: Minv_Jt after ABA, or Y and Dinv_Y (the factor's coordinates, row_pgs.hpp) after
  /// CRBA, when Minv_Jt is left zero.
  const RowSet& rows() const { return rows_; }
  /// Simulated time since construction or reset() (s).
  double time() const { return time_; }
  /// Builds into `rows` the rows that a sub-step of length h with the current settings, joints and motors
  /// builds at configuration q, judging restitution by the velocity v_start, with `data` (a Data of this
  /// model) for the kinematics; returns the number of contact points. The rows carry the same keys as a
  /// step's, zero impulses and no solver fields. SimulatorStepJacobians differentiates them along q with it.
  int buildRowsAt(const Eigen::VectorXd& q, const Eigen::VectorXd& v_start, double h, Data& data, RowSet& rows) const;
  /// The same with the body contacts' broad phase workspace given (a BroadPhase of this model), so that no call
  /// after the first allocates.
  int buildRowsAt(const Eigen::VectorXd& q, const Eigen::VectorXd& v_start, double h, Data& data, RowSet& rows,
                  BroadPhase& broad_phase) const;
  /// The builder that made a row of this class's steps, read from the row's key, and the key's offset in that
  /// builder's range (for ground contacts, row_contacts.hpp's 3 (8 geometry + point) + {0, 1, 2}).
  /// SimulatorStepJacobians differentiates each source's rows by that source's formula.
  enum class RowSource { RowJoint, Limit, Motor, JointFriction, Mimic, GroundContact, BodyContact };
  /// The builder that made the row with this key; `offset` receives the key's offset in its range.
  static RowSource rowSource(std::int64_t key, std::int64_t& offset);

 private:
  friend struct RolloutBlocks;  ///< rollout.cpp: steps without the energy when its caller does not ask for it
  /// step(h) with the energy computed only when `energy` (step(h) passes settings().energy).
  const StepStatistics& advance(double h, bool energy);
  void substep(double h, double t_end);  ///< t_end: the time at its end, for messages
  void buildRows(double h);
  /// The rows at q into `rows`, with data.X_body_world at q already; returns the number of contact points.
  int appendRows(const Eigen::VectorXd& q, const Eigen::VectorXd& v_start, double h, Data& data, RowSet& rows,
                 BroadPhase& broad_phase) const;

  Model model_;
  SimulatorSettings settings_;
  Data data_;
  RowSet rows_;
  BroadPhase broad_phase_;  ///< the body contacts' pairs of shapes that may touch
  RowResponse response_;
  Eigen::VectorXd v_start_;
  StepStatistics statistics_;
  double time_ = 0.0;
};

}  // namespace abdyn
