#define BOOST_TEST_MODULE simulator_derivatives
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/QR>

#include "abdyn/algorithms/aba.hpp"
#include "abdyn/algorithms/derivatives.hpp"
#include "abdyn/algorithms/kinematics.hpp"
#include "abdyn/constraints/constrained_dynamics.hpp"
#include "abdyn/integrators/simulator.hpp"
#include "abdyn/integrators/simulator_step_derivatives.hpp"
#include "abdyn/integrators/step_derivatives.hpp"
#include "abdyn/io/urdf.hpp"
#include "abdyn/io/urdf_loops.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/model_builder.hpp"
#include "abdyn/model/random_model.hpp"
#include "abdyn/spatial/quaternion.hpp"
#include "abdyn/spatial/rotation.hpp"
#include "floating_box.hpp"
#include "test_helpers.hpp"

using namespace abdyn;

// SimulatorStepJacobians against centred differences of Simulator::step itself, in the tangent space: the
// state (q, v) moves by integrate(q, +-eps e_k) and v +- eps e_k, tau by +-eps e_k, and the next
// configurations are compared through difference(q1, .) from the unperturbed step's q1. eps = 1e-5: the
// step is smooth on its branch, so the truncation error is O(eps^2) (about 1e-10 relative here), and the
// solver converges to 1e-14 (m/s), so its error divided by eps stays below 1e-8. The norm is Frobenius
// over [A B] - [A_fd B_fd], relative to [A - 1, B] (what the step changes; A itself is 1 + O(h) and
// would hide an error in its O(h) part); asked 1e-6. Every perturbed step must keep the
// unperturbed step's rows (keys) and their roles (free or at which bound), checked here: a step that
// changed them would be on another branch.

namespace {

constexpr double kEps = 1e-5;
constexpr double kTolerance = 1e-6;

using ActiveSet = std::vector<std::pair<std::int64_t, RowActivity>>;

ActiveSet activeSet(const Simulator& sim, double tolerance) {
  ActiveSet set;
  for (int r = 0; r < sim.rows().size(); ++r) {
    set.emplace_back(sim.rows()[r].key, SimulatorStepJacobians::activity(sim.rows(), r, tolerance));
  }
  return set;
}

// One step of `start` by h from its state moved by sign kEps along column c of [q (tangent space) | v | tau].
Simulator perturbedStep(const Simulator& start, int c, double sign, double h) {
  const int n = start.model().nv();
  Simulator sim = start;
  Eigen::VectorXd e = Eigen::VectorXd::Zero(n);
  e[c % n] = sign * kEps;
  if (c < n) sim.q = integrate(start.model(), start.q, e, 1.0);
  else if (c < 2 * n) sim.v += e;
  else sim.tau += e;
  sim.step(h);
  return sim;
}

struct Differences {
  Eigen::MatrixXd A, B;
  bool active_set_kept = true;
};

// Centred differences of one step of `start` (copied for every evaluation, so each starts from the same
// warm-start impulses) by h, and whether every perturbed step kept the active set `nominal`.
Differences centredDifferences(const Simulator& start, double h, const ActiveSet& nominal, double tolerance) {
  const Model& model = start.model();
  const int n = model.nv();
  Simulator reference = start;
  reference.step(h);
  const Eigen::VectorXd q1 = reference.q, v1 = reference.v;
  Differences out;
  out.A.setZero(2 * n, 2 * n);
  out.B.setZero(2 * n, n);
  const auto run = [&](int column, double sign) {
    const Simulator sim = perturbedStep(start, column, sign, h);
    if (activeSet(sim, tolerance) != nominal) out.active_set_kept = false;
    Eigen::VectorXd x(2 * n);
    x << difference(model, q1, sim.q), sim.v - v1;
    return x;
  };
  for (int c = 0; c < 3 * n; ++c) {
    const Eigen::VectorXd column = (run(c, 1.0) - run(c, -1.0)) / (2.0 * kEps);
    if (c < 2 * n) out.A.col(c) = column;
    else out.B.col(c - 2 * n) = column;
  }
  return out;
}

// Differentiates one step of `sim` and checks A and B against the differences; returns the active set.
std::vector<RowActivity> checkStep(const std::string& name, Simulator& sim, double h) {
  const Simulator start = sim;
  SimulatorStepJacobians jacobians(sim);
  jacobians.step(sim, h);
  const ActiveSet nominal = activeSet(sim, jacobians.clamp_tolerance);
  const Differences fd = centredDifferences(start, h, nominal, jacobians.clamp_tolerance);
  BOOST_TEST(fd.active_set_kept, name << ": a perturbed step changed the active set");
  // Relative to what the step changes, [A - 1, B]: A is close to 1 and would hide errors in its O(h) part.
  const int n = sim.model().nv();
  const double scale = std::sqrt((jacobians.A - Eigen::MatrixXd::Identity(2 * n, 2 * n)).squaredNorm() +
                                 jacobians.B.squaredNorm());
  const double error = std::sqrt((jacobians.A - fd.A).squaredNorm() + (jacobians.B - fd.B).squaredNorm()) / scale;
  int free_rows = 0;
  for (RowActivity a : jacobians.activity()) free_rows += a == RowActivity::Free;
  BOOST_TEST_MESSAGE(name << ": " << sim.rows().size() << " rows (" << free_rows << " free), relative error of [A B] "
                          << error);
  BOOST_TEST(error < kTolerance, name << ": relative error " << error);
  return jacobians.activity();
}

// The step with the rows' roles of `nominal` held (docs/derivatives.md, section 8), solved densely and
// independently of the solver: v_free = v + h a(q, v, tau) and W = d ID / d a with the step's damping
// treatment, the rows rebuilt at q, clamped rows at the impulses they had (`clamped`, by key; a sliding
// friction row at s mu times its free normal row's impulse), and the free rows' impulses the minimum-norm
// least-squares solution of their equalities (Eigen's complete orthogonal decomposition), which is the
// limit of the step with every free row softened by cfm -> 0 when the rows over-determine v+. Returns
// (q1 as difference from q_ref, v1).
Eigen::VectorXd heldStep(const Simulator& sim, const ActiveSet& nominal, const std::vector<double>& clamped, double h,
                         const Eigen::VectorXd& q_ref) {
  const Model& model = sim.model();
  const int n = model.nv();
  Data data(model);
  DynamicsOptions options = sim.settings().dynamics;
  if (sim.settings().implicit_damping) options.implicit_damping_step = h;
  const Eigen::VectorXd v_free = sim.v + h * forwardDynamics(model, data, sim.q, sim.v, sim.tau, options);
  inverseDynamicsDerivatives(model, data, sim.q, sim.v, Eigen::VectorXd::Zero(n), options);
  const Eigen::LLT<Eigen::MatrixXd> W(data.M);
  RowSet rows(model);
  sim.buildRowsAt(sim.q, sim.v, h, data, rows);
  BOOST_REQUIRE_EQUAL(static_cast<std::size_t>(rows.size()), nominal.size());
  std::vector<int> unknown(nominal.size(), -1);
  int e = 0;
  for (int r = 0; r < rows.size(); ++r) {
    BOOST_REQUIRE_EQUAL(rows[r].key, nominal[static_cast<std::size_t>(r)].first);
    if (nominal[static_cast<std::size_t>(r)].second == RowActivity::Free) unknown[static_cast<std::size_t>(r)] = e++;
  }
  Eigen::MatrixXd JtT = Eigen::MatrixXd::Zero(n, e), JE(e, n);
  Eigen::VectorXd impulse_c = Eigen::VectorXd::Zero(n), cfm(e);  // J^T c, the clamped rows' impulse
  for (int r = 0; r < rows.size(); ++r) {
    const ConstraintRow& row = rows[r];
    const int u = unknown[static_cast<std::size_t>(r)];
    if (u >= 0) {
      JtT.col(u) += row.J;
      JE.row(u) = row.J.transpose();
      cfm[u] = row.cfm;
    } else if (row.tie >= 0 && unknown[static_cast<std::size_t>(row.tie)] >= 0) {
      const double sign = nominal[static_cast<std::size_t>(r)].second == RowActivity::AtUpper ? 1.0 : -1.0;
      JtT.col(unknown[static_cast<std::size_t>(row.tie)]) += sign * row.mu * row.J;
    } else {
      impulse_c += clamped[static_cast<std::size_t>(r)] * row.J;
    }
  }
  const Eigen::VectorXd v_c = v_free + W.solve(impulse_c);
  Eigen::VectorXd target(e);
  for (int r = 0; r < rows.size(); ++r) {
    if (unknown[static_cast<std::size_t>(r)] >= 0) target[unknown[static_cast<std::size_t>(r)]] = rows[r].target;
  }
  const Eigen::MatrixXd Y = W.solve(JtT);
  Eigen::MatrixXd S = JE * Y;
  S.diagonal() += cfm;
  const Eigen::VectorXd lambda = Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>(S).solve(target - JE * v_c);
  const Eigen::VectorXd v1 = v_c + Y * lambda;
  Eigen::VectorXd x(2 * n);
  x << difference(model, q_ref, integrate(model, sim.q, v1, h)), v1;
  return x;
}

// Centred differences (kEps) of heldStep at the state of `start`, with the roles and clamped impulses of
// `nominal`'s last step, against `jacobians`' A and B: the relative error as checkStep measures it.
double heldStepError(const Simulator& start, const Simulator& nominal, const SimulatorStepJacobians& jacobians, double h) {
  const Model& model = start.model();
  const int n = model.nv();
  const ActiveSet roles = activeSet(nominal, jacobians.clamp_tolerance);
  std::vector<double> clamped;
  for (int r = 0; r < nominal.rows().size(); ++r) clamped.push_back(nominal.rows()[r].impulse);
  Eigen::MatrixXd A(2 * n, 2 * n), B(2 * n, n);
  for (int c = 0; c < 3 * n; ++c) {
    Eigen::VectorXd column = Eigen::VectorXd::Zero(2 * n);
    for (const double sign : {1.0, -1.0}) {
      Simulator sim = start;
      Eigen::VectorXd e = Eigen::VectorXd::Zero(n);
      e[c % n] = sign * kEps;
      if (c < n) sim.q = integrate(model, start.q, e, 1.0);
      else if (c < 2 * n) sim.v += e;
      else sim.tau += e;
      column += sign * heldStep(sim, roles, clamped, h, nominal.q) / (2.0 * kEps);
    }
    if (c < 2 * n) A.col(c) = column;
    else B.col(c - 2 * n) = column;
  }
  const double scale = std::sqrt((jacobians.A - Eigen::MatrixXd::Identity(2 * n, 2 * n)).squaredNorm() + jacobians.B.squaredNorm());
  return std::sqrt((jacobians.A - A).squaredNorm() + (jacobians.B - B).squaredNorm()) / scale;
}

// The analytic row derivatives against the centred rebuilds of every row (rebuild_all_rows) from the same
// state: the relative difference of [A B], as checkStep measures it.
double analyticAgainstRebuilt(const Simulator& start, double h) {
  Simulator analytic = start, rebuilt = start;
  SimulatorStepJacobians a(analytic), r(rebuilt);
  r.rebuild_all_rows = true;
  a.step(analytic, h);
  r.step(rebuilt, h);
  const int n = start.model().nv();
  const double scale = std::sqrt((r.A - Eigen::MatrixXd::Identity(2 * n, 2 * n)).squaredNorm() + r.B.squaredNorm());
  return std::sqrt((a.A - r.A).squaredNorm() + (a.B - r.B).squaredNorm()) / scale;
}

// The lowest unilateral row error (the deepest contact gap) at the simulator's state, from rows built with a
// margin that takes every candidate point in (however slowly it approaches), joint limits off.
double lowestGap(Simulator probe) {
  probe.settings().contact.margin = 10.0;
  probe.settings().contact.speculative_steps = HUGE_VAL;
  probe.settings().joint_limits = false;
  Data data(probe.model());
  RowSet rows(probe.model());
  probe.buildRowsAt(probe.q, probe.v, 1e-3, data, rows);
  double lowest = HUGE_VAL;
  for (int r = 0; r < rows.size(); ++r) {
    if (rows[r].unilateral) lowest = std::min(lowest, rows[r].error);
  }
  return lowest;
}

SimulatorSettings tightSettings() {
  SimulatorSettings settings;
  settings.solver.tolerance = 1e-14;
  settings.solver.max_iterations = 5000;
  return settings;
}

// The 2 kg box of 0.4 x 0.3 x 0.2 m under gravity, flat on the ground (its centre 2 mm lower than resting
// would put it) with friction coefficient mu, under tightSettings.
Simulator boxFlatOnTheGround(double mu) {
  SimulatorSettings settings = tightSettings();
  settings.ground = true;
  settings.contact.mu = mu;
  Simulator sim(test::floatingBox(Vector3(0.4, 0.3, 0.2), 2.0, Vector3(0.0, 0.0, -9.81)), settings);
  sim.q[2] = 0.098;
  return sim;
}

// A double pendulum (hinges about y, 1 kg bobs 0.5 m below each hinge) with damping, a limit on the
// first hinge and Coulomb friction on the second.
Model limitedDoublePendulum() {
  ModelBuilder b("double_pendulum_limits");
  JointSpec hinge;
  hinge.name = "shoulder";
  hinge.axis = Vector3::UnitY();
  hinge.lower = -1.0;
  hinge.upper = 0.3;
  hinge.damping = 0.3;
  const RigidBodyInertia bob(1.0, Vector3(0, 0, -0.5), Matrix3::Identity() * 1e-2);
  const int upper = b.addBody(0, hinge, Plx(), bob, "upper");
  hinge.name = "elbow";
  hinge.lower = -std::numeric_limits<double>::infinity();
  hinge.upper = std::numeric_limits<double>::infinity();
  hinge.friction = 0.2;
  b.addBody(upper, hinge, Plx::translation(Vector3(0, 0, -0.5)), bob, "lower");
  return b.build();
}

// A floating body (1 kg) carrying one collision shape of `shape` and `size` at its origin.
Model floatingShape(ShapeType shape, const Vector3& size) {
  ModelBuilder b("shape");
  test::addFloatingShape(b, "body", shape, size, 1.0);
  return b.build();
}

// A floating ball (radius 0.1 m, 1 kg) carrying its own collision sphere.
Model floatingBall() { return floatingShape(ShapeType::Sphere, Vector3(0.1, 0.0, 0.0)); }

}  // namespace

// The shoulder is driven into its upper limit (0.3 rad) by 20 N m and pressed 1e-4 rad past it (the limit row free,
// impulse > 0) while the elbow swings with its friction at the bound (clamped); damping taken implicitly,
// then explicitly.
BOOST_AUTO_TEST_CASE(pendulum_on_its_limit) {
  for (const bool implicit : {true, false}) {
    SimulatorSettings settings = tightSettings();
    settings.joint_limits = true;
    settings.implicit_damping = implicit;
    Simulator sim(limitedDoublePendulum(), settings);
    sim.tau << 20.0, 0.0;
    sim.q << 0.25, 0.4;
    sim.v << 0.0, 2.0;
    for (int k = 0; k < 100; ++k) sim.step(1e-3);
    // It rests exactly on the bound (C = 0), the kink of the limit's target between the open side's slope
    // -1/h and the penetrating side's -erp/h, where the step has no derivative and centred differences return
    // the mean of the two: start 1e-4 rad past the bound, on the penetrating branch, well beyond kEps.
    sim.q[0] = 0.3001;
    const std::vector<RowActivity> active = checkStep(implicit ? "pendulum, implicit damping" : "pendulum, explicit damping", sim, 1e-3);
    BOOST_REQUIRE_EQUAL(active.size(), 2u);  // the shoulder's upper limit, the elbow's friction
    BOOST_TEST((active[0] == RowActivity::Free));
    BOOST_TEST((active[1] != RowActivity::Free));
  }
}

// The shoulder 0.1 rad past its upper limit: ERP would ask for 0.2 * 0.1 / 1e-3 = 20 rad/s back, above
// limit_max_push_velocity (1 rad/s), so the row's target is the cap, which does not move with q.
BOOST_AUTO_TEST_CASE(pendulum_far_past_its_limit) {
  SimulatorSettings settings = tightSettings();
  settings.joint_limits = true;
  Simulator sim(limitedDoublePendulum(), settings);
  sim.q << 0.4, 0.4;
  sim.v << 0.0, 2.0;
  const std::vector<RowActivity> active = checkStep("pendulum 0.1 rad past its limit", sim, 1e-3);
  BOOST_REQUIRE(!active.empty());
  BOOST_TEST((active[0] == RowActivity::Free));
}

// A ball 2 mm into the ground (ERP pushes it out), moving along x at 0.3 m/s: with mu = 2 its contact
// sticks (normal and both friction rows free), with mu = 0.2 it slides (the friction row along the motion
// at -mu times the normal impulse, moving with it).
BOOST_AUTO_TEST_CASE(ball_on_the_ground_sticks_or_slides) {
  for (const double mu : {2.0, 0.2}) {
    SimulatorSettings settings = tightSettings();
    settings.ground = true;
    settings.joint_friction = false;
    settings.contact.mu = mu;
    Simulator sim(floatingBall(), settings);
    sim.q[2] = 0.098;
    sim.v << 0.0, 0.0, 0.0, 0.3, 0.0, 0.0;
    const std::vector<RowActivity> active = checkStep(mu > 1.0 ? "ball, sticking" : "ball, sliding", sim, 1e-3);
    BOOST_REQUIRE_EQUAL(active.size(), 3u);
    int free_rows = 0;
    for (RowActivity a : active) free_rows += a == RowActivity::Free;
    BOOST_TEST(free_rows == (mu > 1.0 ? 3 : 2));
  }
}

// A box (0.4 x 0.3 x 0.2 m, 2 kg) flat on the ground, 2 mm in, moving at 0.1 m/s and sticking (mu = 2): four
// corners, twelve free rows of rank six, so the impulses are not unique but v+ is (the singular, consistent
// branch of the held system).
BOOST_AUTO_TEST_CASE(box_flat_on_the_ground_has_redundant_rows) {
  Simulator sim = boxFlatOnTheGround(2.0);
  sim.v[3] = 0.1;
  const std::vector<RowActivity> active = checkStep("box flat on the ground", sim, 1e-3);
  BOOST_REQUIRE_EQUAL(active.size(), 12u);
}

// Two gears coupled by a mimic row q_f = 2 q_l + 0.1, 0.005 rad off it (the ERP bias acts), the leader driven
// by a motor whose target it cannot reach within its effort (the motor row at its bound) or can (free).
BOOST_AUTO_TEST_CASE(mimic_coupling_with_a_motor) {
  for (const double effort : {0.5, 1000.0}) {
    ModelBuilder b("gears");
    JointSpec axle;
    axle.name = "leader";
    axle.axis = Vector3::UnitY();
    b.addBody(0, axle, Plx(), RigidBodyInertia(1.0, Vector3(0, 0, -0.3), Matrix3::Identity() * 0.5), "gear1");
    axle.name = "follower";
    axle.damping = 0.2;
    b.addBody(0, axle, Plx::translation(Vector3(1, 0, 0)), RigidBodyInertia(1.0, Vector3(0.1, 0, 0), Matrix3::Identity() * 0.2), "gear2");
    b.addMimic("follower", "leader", 2.0, 0.1);
    Simulator sim(b.build(), tightSettings());
    sim.motors.push_back(JointMotor{0, 1.0, effort});
    sim.q << 0.2, 0.505;
    sim.v << 0.3, 0.6;
    sim.tau << 0.1, -0.2;
    const std::vector<RowActivity> active = checkStep(effort < 1.0 ? "gears, motor at its bound" : "gears, motor free", sim, 1e-3);
    BOOST_REQUIRE_EQUAL(active.size(), 2u);  // motor, mimic
    BOOST_TEST(((active[0] == RowActivity::Free) == (effort > 1.0)));
    BOOST_TEST((active[1] == RowActivity::Free));
  }
}

// A floating rod (1 kg, centre 0.5 m below its origin) held at the world origin by a ball joint of rows
// (three bilateral linear rows whose J(q) turns with the rod), tilted, spinning and 1 mm off its anchor (the
// ERP bias acts): the rows' dJ/dq enters through d(J^T lambda)/dq and d(J v+)/dq. With both response methods
// (the derivative does not depend on how the solver formed the responses).
BOOST_AUTO_TEST_CASE(rod_on_a_ball_joint_of_rows) {
  for (const ResponseMethod method : {ResponseMethod::Articulated, ResponseMethod::Factorized}) {
    SimulatorSettings settings = tightSettings();
    settings.response = method;
    Simulator sim(test::floatingRod(), settings);
    sim.joints.push_back(RowJoint{RowJointType::Ball, 0, 1});
    sim.q << 0.001, 0.0, 0.0, std::cos(0.15), std::sin(0.15), 0.0, 0.0;
    sim.v << 1.0, 0.5, 2.0, 0.0, 0.0, 0.0;
    sim.tau << 0.1, -0.2, 0.3, 0.0, 0.0, 0.0;
    const std::vector<RowActivity> active = checkStep(
        method == ResponseMethod::Articulated ? "rod on a ball joint of rows, articulated" : "rod on a ball joint of rows, factorized",
        sim, 1e-3);
    BOOST_REQUIRE_EQUAL(active.size(), 3u);
    for (RowActivity a : active) BOOST_TEST((a == RowActivity::Free));
  }
}

// Without rows the Simulator's step is semi-implicit Euler with implicit damping: its Jacobians equal
// StepJacobians::semiImplicitEuler with implicit_damping_step = h (the same derivative passes, so to
// 1e-10 relative) and the differences as above, on random trees (fixed and floating base, every joint type,
// damping and armature), seed 11.
BOOST_AUTO_TEST_CASE(no_rows_is_semi_implicit_euler_with_implicit_damping) {
  std::mt19937 rng(11);
  for (const bool floating : {false, true}) {
    const Model model = randomTree({6, false, floating, true, true}, rng);
    Simulator sim(model, tightSettings());
    sim.q = randomConfiguration(model, rng);
    sim.v = Eigen::VectorXd::Random(model.nv());
    sim.tau = Eigen::VectorXd::Random(model.nv());
    const double h = 1e-3;
    const Eigen::VectorXd q = sim.q, v = sim.v, tau = sim.tau;
    checkStep(floating ? "random floating tree" : "random fixed tree", sim, h);
    sim.q = q;
    sim.v = v;
    SimulatorStepJacobians jacobians(sim);
    jacobians.step(sim, h);
    Data data(model);
    StepJacobians euler(model);
    DynamicsOptions options;
    options.implicit_damping_step = h;
    euler.semiImplicitEuler(model, data, q, v, tau, h, options);
    const double error_a = (jacobians.A - euler.A).norm() / euler.A.norm();
    const double error_b = (jacobians.B - euler.B).norm() / euler.B.norm();
    BOOST_TEST_MESSAGE("no rows against StepJacobians::semiImplicitEuler: relative error A " << error_a << ", B " << error_b);
    BOOST_TEST(error_a < 1e-10);
    BOOST_TEST(error_b < 1e-10);
  }
}

// Bad arguments: a simulator of another model, h <= 0, sub-steps, restitution; none of them steps.
BOOST_AUTO_TEST_CASE(bad_arguments_are_named) {
  Simulator ball(floatingBall(), tightSettings());
  Simulator pendulum(limitedDoublePendulum(), tightSettings());
  SimulatorStepJacobians jacobians(ball);
  const auto throws = [](const std::function<void()>& f, const std::string& part) {
    try {
      f();
    } catch (const InvalidArgument& e) {
      const std::string what = e.what();
      BOOST_TEST(what.find("abdyn::SimulatorStepJacobians::step") != std::string::npos, what);
      BOOST_TEST(what.find(part) != std::string::npos, what);
      return;
    }
    BOOST_ERROR("no abdyn::InvalidArgument naming " << part);
  };
  throws([&] { jacobians.step(pendulum, 1e-3); }, "model 'double_pendulum_limits'");
  throws([&] { jacobians.step(ball, 0.0); }, "'h'");
  ball.settings().substeps = 2;
  throws([&] { jacobians.step(ball, 1e-3); }, "substeps");
  ball.settings().substeps = 1;
  ball.settings().ground = true;
  ball.settings().contact.restitution = 0.5;
  throws([&] { jacobians.step(ball, 1e-3); }, "restitution");
  ball.v.resize(3);
  ball.settings().contact.restitution = 0.0;
  throws([&] { jacobians.step(ball, 1e-3); }, "'v'");
  BOOST_TEST(ball.time() == 0.0);
}

namespace {

Model humanoid() {
  UrdfOptions options;
  options.floating_base = true;
  return loadUrdf(std::string(ABDYN_SOURCE_DIR) + "/models/humanoid.urdf", options);
}

// The humanoid's settings in bench_step_peers (limits, ground 0.95 m below the pelvis, mu 0.8, 20 sweeps).
SimulatorSettings ragdollSettings() {
  SimulatorSettings settings;
  settings.joint_limits = true;
  settings.ground = true;
  settings.contact.height = -0.95;
  settings.contact.mu = 0.8;
  settings.solver.max_iterations = 20;
  return settings;
}

// Moves every one-DoF joint within 1e-4 of a position limit to 1e-4 past it: a joint resting on its limit sits
// at C = 0 (or within rounding of it), the kink of the limit's target between the open side's slope -1/h and
// the penetrating side's -erp/h, where the step has no derivative and centred differences straddling it
// return the mean of the two slopes; the analytic derivative takes the side of C's sign, the step's branch.
void pressLimits(Simulator& sim) {
  const Model& model = sim.model();
  for (int i = 1; i < model.nbodies(); ++i) {
    const Joint& joint = model.joint(i);
    if (joint.nq != 1 || joint.nv != 1) continue;
    double& q = sim.q[joint.idx_q];
    const double lower = model.lowerPositionLimit()[joint.idx_q], upper = model.upperPositionLimit()[joint.idx_q];
    if (std::abs(q - lower) < 1e-4) q = lower - 1e-4;
    if (std::abs(q - upper) < 1e-4) q = upper + 1e-4;
  }
}

}  // namespace

// The analytic q derivatives of the rows (limits, mimic and motor rows, ground contacts on box corners, a
// sphere's lowest point and a tilted cylinder's rim points, which slide over the shape) against centred
// rebuilds of every row (rebuild_all_rows, eps = 1e-5: error O(eps^2) ~ 1e-10 and rounding 1e-16 / eps), from
// states whose contacts and limits lie well off the kink of their targets (|C| >> eps), to 1e-7 relative.
// Random velocities from seed 7.
BOOST_AUTO_TEST_CASE(analytic_row_derivatives_match_rebuilt_rows) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const auto randomVelocity = [&](int n, double scale) {
    Eigen::VectorXd v(n);
    for (int k = 0; k < n; ++k) v[k] = scale * uniform(rng);
    return v;
  };
  const auto check = [](const std::string& name, const Simulator& sim) {
    const double error = analyticAgainstRebuilt(sim, 1e-3);
    BOOST_TEST_MESSAGE(name << ": analytic against rebuilt " << error);
    BOOST_TEST(error < 1e-7, name << ": " << error);
  };
  for (const double mu : {2.0, 0.2}) {
    SimulatorSettings settings = tightSettings();
    settings.ground = true;
    settings.contact.mu = mu;
    Simulator ball(floatingBall(), settings);
    ball.q[2] = 0.098;
    ball.v = randomVelocity(6, 0.3);
    check(mu > 1.0 ? "ball, sticking" : "ball, sliding", ball);
    // A box tilted about x and y, two corners 2 and 4 mm in: rows on corners at different depths.
    Simulator box(test::floatingBox(Vector3(0.4, 0.3, 0.2), 2.0, Vector3(0.0, 0.0, -9.81)), settings);
    box.q.segment<4>(3) << std::cos(0.01), std::sin(0.01), std::sin(0.005), 0.0;
    box.q.segment<4>(3).normalize();
    box.q[2] = 0.1;
    box.v = randomVelocity(6, 0.2);
    check(mu > 1.0 ? "tilted box, sticking" : "tilted box, sliding", box);
    // A cylinder (radius 0.05 m, 0.2 m long) tilted 0.2 rad: its lower cap's lowest rim point 8 mm in and
    // the two side points 2 mm above the ground, within the margin.
    Simulator cylinder(floatingShape(ShapeType::Cylinder, Vector3(0.05, 0.2, 0.0)), settings);
    cylinder.q.segment<4>(3) << std::cos(0.1), std::sin(0.1), 0.0, 0.0;
    cylinder.q[2] = 0.1 * std::cos(0.2) + 0.002;
    cylinder.v = randomVelocity(6, 0.3);
    check(mu > 1.0 ? "tilted cylinder, sticking" : "tilted cylinder, sliding", cylinder);
    // A ball 2 mm above the ground falling at 3 m/s, faster than restitution_threshold: the builder raises its
    // open gap's target -gap/h to -restitution J v = 0, so the target's slope is 0, not -1/h.
    Simulator falling(floatingBall(), settings);
    falling.q[2] = 0.102;
    falling.v << 0.3, -0.2, 0.1, 4.0, 2.0, -3.0;
    check(mu > 1.0 ? "ball falling onto the ground, sticking" : "ball falling onto the ground, sliding", falling);
  }
  // The humanoid standing, its feet 3 mm in and tilted by 0.02 rad, limits (pressed off their kink) and joint
// friction on.
  Simulator standing(humanoid(), ragdollSettings());
  standing.settings().solver = tightSettings().solver;
  standing.q.segment<4>(3) << std::cos(0.01), std::sin(0.01), 0.0, 0.0;
  standing.q[2] -= lowestGap(standing) + 0.003;
  pressLimits(standing);
  standing.v = randomVelocity(standing.model().nv(), 0.1);
  check("humanoid on its feet", standing);
  // Limits past their bound (pendulum) and the mimic and motor rows (gears) as in the tests above.
  SimulatorSettings limits = tightSettings();
  limits.joint_limits = true;
  Simulator pendulum(limitedDoublePendulum(), limits);
  pendulum.tau << 20.0, 0.0;
  pendulum.q << 0.3001, 0.4;
  pendulum.v << 0.0, 2.0;
  check("pendulum past its limit", pendulum);
}

// A box resting flat on the ground (settled for 0.5 s from 2 mm in at rest, then pressed 1e-4 m further so
// that its corners sit off the kink of their targets at C = 0, by more than kEps moves them): four coplanar
// corners, all sticking, twelve free rows of rank six. Against the full step's differences (every column keeps
// the active set) and the held step's.
BOOST_AUTO_TEST_CASE(box_resting_flat) {
  Simulator sim = boxFlatOnTheGround(0.8);
  for (int k = 0; k < 500; ++k) sim.step(1e-3);
  BOOST_TEST(sim.v.norm() < 1e-6);
  sim.q[2] -= 1e-4;
  const Simulator start = sim;
  const std::vector<RowActivity> active = checkStep("box resting flat", sim, 1e-3);
  BOOST_REQUIRE_EQUAL(active.size(), 12u);
  for (RowActivity a : active) BOOST_TEST((a == RowActivity::Free));
  Simulator nominal = start;
  SimulatorStepJacobians jacobians(nominal);
  jacobians.step(nominal, 1e-3);
  const double held = heldStepError(start, nominal, jacobians, 1e-3);
  BOOST_TEST_MESSAGE("box resting flat against the held step: " << held);
  BOOST_TEST(held < kTolerance);
}

// The humanoid of bench_step_peers at rest on the ground: dropped with its sideways push, 2 s (1000 steps of
// 2 ms, 20 sweeps), then stepped once with ERP 1 for limits and contacts (its contacts and limits rest at
// C = 0, within rounding, the kink of their targets between the slopes -1/h and -erp/h, which agree at ERP 1
// so that differences straddling C = 0 stay valid: see pressLimits) and the solver converged with the solver converged (1e-14). Lying down, its free rows (contacts
// and sticking joint friction) outnumber its 36 coordinates: they over-determine v+, consistently at this
// state but not once q moves (section 8), where the held-fixed step has no exact solution and the
// derivative is the least-squares one. Checked against the held step's differences (every column) and the
// full step's (the columns whose perturbed steps keep the active set: v and tau, whose perturbations move no
// row), to 1e-6 relative.
BOOST_AUTO_TEST_CASE(ragdoll_resting_on_the_ground) {
  const double h = 2e-3;
  Simulator sim(humanoid(), ragdollSettings());
  sim.v.segment<3>(3) << 0.8, 0.5, 0.2;
  for (int k = 0; k < 1000; ++k) sim.step(h);
  sim.settings().erp = 1.0;
  sim.settings().contact.erp = 1.0;
  sim.settings().solver = tightSettings().solver;
  const Simulator start = sim;
  Simulator nominal = start;
  SimulatorStepJacobians jacobians(nominal);
  BOOST_REQUIRE_NO_THROW(jacobians.step(nominal, h));
  Eigen::MatrixXd J_free(0, start.model().nv());
  for (int r = 0; r < nominal.rows().size(); ++r) {
    if (jacobians.activity()[static_cast<std::size_t>(r)] != RowActivity::Free) continue;
    J_free.conservativeResize(J_free.rows() + 1, Eigen::NoChange);
    J_free.bottomRows(1) = nominal.rows()[r].J.transpose();
  }
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> rank(J_free);
  rank.setThreshold(1e-10);
  BOOST_TEST_MESSAGE("ragdoll at rest: " << nominal.statistics().contacts << " contacts, " << nominal.rows().size()
                                         << " rows, " << J_free.rows() << " free, of rank " << rank.rank());
  BOOST_TEST(rank.rank() < J_free.rows());  // dependent free rows: the case that had no exact solution
  const double held = heldStepError(start, nominal, jacobians, h);
  BOOST_TEST_MESSAGE("ragdoll at rest against the held step: " << held);
  BOOST_TEST(held < kTolerance);
  // The full step, column by column, where the perturbed steps keep the active set.
  const Model& model = start.model();
  const int n = model.nv();
  const ActiveSet roles = activeSet(nominal, jacobians.clamp_tolerance);
  Eigen::MatrixXd AB(2 * n, 3 * n), fd(2 * n, 3 * n);
  AB << jacobians.A, jacobians.B;
  int kept = 0;
  double diff = 0.0, scale = 0.0;
  for (int c = 0; c < 3 * n; ++c) {
    Eigen::VectorXd column = Eigen::VectorXd::Zero(2 * n);
    bool same = true;
    for (const double sign : {1.0, -1.0}) {
      const Simulator s = perturbedStep(start, c, sign, h);
      same = same && activeSet(s, jacobians.clamp_tolerance) == roles;
      Eigen::VectorXd x(2 * n);
      x << difference(model, nominal.q, s.q), s.v - nominal.v;
      column += sign * x / (2.0 * kEps);
    }
    if (!same) continue;
    ++kept;
    Eigen::VectorXd one = Eigen::VectorXd::Zero(2 * n);
    if (c < 2 * n) one[c] = 1.0;
    diff += (AB.col(c) - column).squaredNorm();
    scale += (AB.col(c) - one).squaredNorm();
  }
  const double error = std::sqrt(diff / scale);
  BOOST_TEST_MESSAGE("ragdoll at rest against the full step: " << kept << " of " << 3 * n << " columns keep the active set, relative error " << error);
  BOOST_TEST(kept >= 2 * n);
  BOOST_TEST(error < kTolerance);
}

namespace {

// A URDF's revolute loop joints as hinge joints of rows (three linear and two angular rows each), as
// bench_step_peers holds the delta robot's: the hinge axis is z of both frames.
std::vector<RowJoint> urdfHinges(const std::string& path, const Model& model) {
  std::vector<RowJoint> hinges;
  for (const LoopClosure& loop : loadUrdfLoops(path, model).loops) {
    BOOST_REQUIRE_EQUAL(loop.rows(), 5);
    // A revolute closure's two angular rows are perpendicular to its axis (Fa coordinates).
    const Vector3 axis = loop.directions.row(0).head<3>().cross(loop.directions.row(1).head<3>()).transpose();
    const auto frame = [&axis](const Matrix3& R_body_F, const Vector3& p) {
      const Vector3 z = R_body_F * axis;
      const Vector3 x = z.unitOrthogonal();
      Matrix3 R;
      R << x, z.cross(x), z;
      return Plx::fromPose(R, p);
    };
    hinges.push_back(RowJoint{RowJointType::Hinge, loop.body_a, loop.body_b, frame(loop.R_a, loop.p_a), frame(loop.R_b, loop.p_b)});
  }
  return hinges;
}

}  // namespace

// The analytic q derivatives of the hinge joints of rows closing the delta robot (three loops, 15 rows on
// 18 coordinates, its platform floating) and the four-bar linkage against the centred rebuilds of every row
// (rebuild_all_rows, eps = 1e-5: truncation O(eps^2) ~ 1e-10 relative and rounding 1e-16 / eps ~ 1e-11), to
// 1e-7 relative as the test above: from a closed pose released under gravity and constant random torques
// (seed 5), after 0, 15 and 40 steps of 2 ms (loops a little open, C ~ 1e-6, so the ERP bias acts),
// and once more with random velocities (seed 5) that open the loops' velocities. The delta's step also
// against centred differences of the step itself (checkStep, 1e-6).
BOOST_AUTO_TEST_CASE(loop_joint_rows_match_rebuilt_rows) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (const std::string name : {"delta_robot", "four_bar"}) {
    const std::string path = std::string(ABDYN_SOURCE_DIR) + "/models/" + name + ".urdf";
    Simulator sim(loadUrdf(path), tightSettings());
    sim.joints = urdfHinges(path, sim.model());
    BOOST_REQUIRE(!sim.joints.empty());
    {
      // Closed by projectPositions from the zero pose (the delta's is closed) or a nearby guess (the four-bar
      // opens at zero), as test_allocation does.
      const ConstraintSet loops = loadUrdfLoops(path, sim.model());
      Data data(sim.model());
      ConstrainedDynamicsData cd(sim.model(), loops);
      if (sim.model().nq() == 3) sim.q << 0.7, -0.3, 1.1;
      projectPositions(sim.model(), data, cd, loops, sim.q);
    }
    for (int k = 0; k < sim.model().nv(); ++k) sim.tau[k] = 0.5 * uniform(rng);
    int done = 0;
    for (const int steps : {0, 15, 40}) {
      for (; done < steps; ++done) sim.step(2e-3);
      const double error = analyticAgainstRebuilt(sim, 2e-3);
      BOOST_TEST_MESSAGE(name << " after " << steps << " steps: analytic against rebuilt " << error);
      BOOST_TEST(error < 1e-7, name << " after " << steps << " steps: " << error);
    }
    Simulator moving = sim;
    for (int k = 0; k < moving.model().nv(); ++k) moving.v[k] += 0.5 * uniform(rng);
    const double error = analyticAgainstRebuilt(moving, 2e-3);
    BOOST_TEST_MESSAGE(name << " with random velocities: analytic against rebuilt " << error);
    BOOST_TEST(error < 1e-7, name << " with random velocities: " << error);
    if (name == "delta_robot") checkStep("delta robot after 40 steps", sim, 2e-3);
  }
}

// Every kind of joint of rows (ball, hinge, slider, fixed, distance) and the swing-cone and twist limit rows,
// between two branches of a floating tree (a revolute and a spherical-revolute branch), against the centred
// rebuilds as above (1e-7). Each joint's frame on B is A's at the state moved by 2 mm and 0.02 rad (so C and
// the ERP bias are not zero); the limits are set 0.01 rad inside the measured swing and twist, so their rows
// are violated and carry impulses (with the joint's own angular rows, redundant: the least-squares case). Random velocities from seed 9.
BOOST_AUTO_TEST_CASE(every_joint_of_rows_matches_rebuilt_rows) {
  ModelBuilder b("two_branches");
  JointSpec free;
  free.type = JointType::Floating;
  free.name = "free";
  const RigidBodyInertia link(1.0, Vector3(0.1, 0.0, -0.2), Vector3(0.02, 0.03, 0.01).asDiagonal());
  const int base = b.addBody(0, free, Plx(), link, "base");
  JointSpec hinge;
  hinge.name = "hinge";
  hinge.axis = Vector3(0.3, 1.0, 0.2).normalized();
  const int left = b.addBody(base, hinge, Plx::translation(Vector3(0.2, 0.1, 0.0)), link, "left");
  JointSpec ball;
  ball.type = JointType::Spherical;
  ball.name = "ball";
  const int upper = b.addBody(base, ball, Plx::translation(Vector3(-0.2, 0.0, 0.1)), link, "upper");
  hinge.name = "elbow";
  hinge.axis = Vector3::UnitX();
  const int right = b.addBody(upper, hinge, Plx::translation(Vector3(0.0, 0.0, -0.3)), link, "right");
  const Model model = b.build();
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  Eigen::VectorXd q = neutral(model);
  q.segment<4>(3) = Eigen::Vector4d(1.0, 0.1, -0.2, 0.05).normalized();
  q[model.joint(left).idx_q] = 0.4;
  q.segment<4>(model.joint(upper).idx_q) = Eigen::Vector4d(1.0, -0.3, 0.2, 0.1).normalized();
  q[model.joint(right).idx_q] = -0.5;
  Data data(model);
  forwardKinematics(model, data, q);
  const Plx X_frame_a = Plx::fromPose(expSO3(Vector3(0.2, -0.1, 0.3)), Vector3(0.05, 0.02, -0.1));
  const Plx X_a_world = X_frame_a * data.X_body_world[static_cast<std::size_t>(left)];
  const Plx offset = Plx::fromPose(expSO3(Vector3(0.02, -0.01, 0.015)), Vector3(0.002, -0.001, 0.0015));
  const Plx X_frame_b = offset * X_a_world * data.X_body_world[static_cast<std::size_t>(right)].inverse();
  const Matrix3 R_a = X_a_world.E().transpose(), R_b = (X_frame_b * data.X_body_world[static_cast<std::size_t>(right)]).E().transpose();
  const double swing = std::acos(R_a.col(2).dot(R_b.col(2)));
  const Quaternion relative = Quaternion::fromRotationMatrix(R_a.transpose() * R_b);
  const double twist = 2.0 * std::atan2(relative.z(), relative.w());
  const std::pair<RowJointType, const char*> types[] = {{RowJointType::Ball, "ball"},       {RowJointType::Hinge, "hinge"},
                                                        {RowJointType::Slider, "slider"},   {RowJointType::Fixed, "fixed"},
                                                        {RowJointType::Distance, "distance"}};
  for (const auto& [type, type_name] : types) {
    for (const bool limits : {false, true}) {
      RowJoint joint{type, left, right, X_frame_a, X_frame_b};
      if (type == RowJointType::Distance) {
        // Anchors 0.27 m apart, kept 2 mm closer: u = (p_A - p_B) / |p_A - p_B| turns at 1 / 0.27 per metre,
        // slowly enough for the rebuilds' O((eps / distance)^2) truncation.
        joint.X_frame_b = Plx::translation(Vector3(0.2, -0.1, 0.15)) * X_frame_b;
        joint.length = 0.27 - 0.002;
      }
      if (limits) {
        joint.swing_limit = swing - 0.01;
        // 0.01 rad past the lower twist bound (ball, slider, distance) or the upper one (hinge, fixed).
        if (type == RowJointType::Hinge || type == RowJointType::Fixed) joint.twist_upper = twist - 0.01;
        else joint.twist_lower = twist + 0.01;
      }
      Simulator sim(model, tightSettings());
      sim.joints.push_back(joint);
      sim.q = q;
      for (int k = 0; k < model.nv(); ++k) sim.v[k] = 0.5 * uniform(rng);
      for (int k = 0; k < model.nv(); ++k) sim.tau[k] = uniform(rng);
      const std::string name = std::string(type_name) + (limits ? " with swing and twist limits" : "");
      const double error = analyticAgainstRebuilt(sim, 1e-3);
      BOOST_TEST_MESSAGE(name << ": analytic against rebuilt " << error);
      BOOST_TEST(error < 1e-7, name << ": " << error);
    }
  }
}

namespace {

// Two floating bodies (1 kg each, not jointed to each other), each carrying one collision shape at its origin,
// without gravity.
Model twoShapes(ShapeType shape_a, const Vector3& size_a, ShapeType shape_b, const Vector3& size_b) {
  ModelBuilder b("two_shapes");
  b.setGravity(Vector3::Zero());
  test::addFloatingShape(b, "body_0", shape_a, size_a, 1.0);
  test::addFloatingShape(b, "body_1", shape_b, size_b, 1.0);
  return b.build();
}

// Two shapes in contact: body 1 (shape A) at position_a, body 2 (shape B) at the origin.
struct ShapePair {
  const char* name;
  ShapeType shape_a;
  Vector3 size_a;
  ShapeType shape_b;
  Vector3 size_b;
  Vector3 position_a;
  Vector3 rotation_a;     // rotation vector of body 1
  Vector3 rotation_b;     // rotation vector of body 2
};

Eigen::Vector4d quaternionWxyz(const Vector3& rotation) {  // a floating joint's (w, x, y, z), joint.hpp
  return Quaternion::fromRotationMatrix(expSO3(rotation)).coeffsWxyz();
}

// The pair's simulator with body contacts (tight solver, friction mu) at rest in the pair's pose.
Simulator pairAtRest(const ShapePair& c, double mu) {
  SimulatorSettings settings = tightSettings();
  settings.body_contacts = true;
  settings.contact.mu = mu;
  Simulator sim(twoShapes(c.shape_a, c.size_a, c.shape_b, c.size_b), settings);
  sim.q.head<3>() = c.position_a;
  sim.q.segment<4>(3) = quaternionWxyz(c.rotation_a);
  sim.q.segment<4>(10) = quaternionWxyz(c.rotation_b);
  return sim;
}

// The pair's simulator as above with random velocities (0.3 uniform) and body 1 moving towards body 2 along
// the line between their origins at 1 m/s more (v's linear part is in body coordinates).
Simulator pairApproaching(const ShapePair& c, double mu, std::mt19937& rng) {
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  Simulator sim = pairAtRest(c, mu);
  for (int k = 0; k < sim.model().nv(); ++k) sim.v[k] = 0.3 * uniform(rng);
  sim.v.segment<3>(3) -= expSO3(c.rotation_a).transpose() * c.position_a.normalized();
  return sim;
}

// The deepest body-contact gap of the pair at its pose.
double deepestGap(const ShapePair& c) { return lowestGap(pairAtRest(c, 0.5)); }

// c with body 1 moved along `direction` (unit, world) to where its deepest gap is -depth: bisection on the
// distance between [near, far], whose gaps bracket -depth (the gap grows as the bodies part).
ShapePair pressed(ShapePair c, const Vector3& direction, double near, double far, double depth) {
  for (int k = 0; k < 60; ++k) {
    const double middle = 0.5 * (near + far);
    c.position_a = middle * direction;
    (deepestGap(c) < -depth ? near : far) = middle;
  }
  c.position_a = 0.5 * (near + far) * direction;
  return c;
}

// The largest change of [A B] between configuration_step 1e-5 and 1e-3 with the analytic row derivatives
// (rebuild_all_rows false): exactly zero when no row is rebuilt, as configuration_step is then unused.
double configurationStepEffect(const Simulator& start, double h) {
  Simulator first = start, second = start;
  SimulatorStepJacobians fine(first), coarse(second);
  coarse.configuration_step = 1e-3;
  fine.step(first, h);
  coarse.step(second, h);
  return std::max((fine.A - coarse.A).cwiseAbs().maxCoeff(), (fine.B - coarse.B).cwiseAbs().maxCoeff());
}

// A pair scene must make contacts in its first step; then its analytic row derivatives against the rebuilt
// ones (analyticAgainstRebuilt, 1e-7).
void checkPairAgainstRebuilt(const std::string& name, const Simulator& sim) {
  Simulator probe = sim;
  probe.step(1e-3);
  BOOST_TEST_MESSAGE(name << ": " << probe.statistics().contacts << " contacts, " << probe.rows().size() << " rows");
  BOOST_REQUIRE(probe.statistics().contacts > 0);
  const double error = analyticAgainstRebuilt(sim, 1e-3);
  BOOST_TEST_MESSAGE(name << ": analytic against rebuilt " << error);
  BOOST_TEST(error < 1e-7, name << ": " << error);
}

}  // namespace

// Body contacts (addBodyContactRows) against the centred rebuilds of every row as above (1e-7), without gravity,
// the bodies approaching at random velocities (seed 13), sticking (mu 2) and sliding (mu 0.2): a sphere 2 mm into
// a sphere (the normal joins the centres and turns with both), a sphere 2 mm into a box's top face, a sphere
// near a box's edge (outside two faces: the normal from the edge turns), and a tilted box whose lowest corner is
// 2 mm into another box (the inside region: the face normal turns with B). The boxes B are tilted: with B level
// the normal is +z, whose least-aligned axes x and y tie in orthonormalComplement, and the rebuilt friction
// directions then flip between them at q (+) eps and q (-) eps (a switch of the tangent basis, where the rebuilds
// are no reference).
BOOST_AUTO_TEST_CASE(body_contact_rows_match_rebuilt_rows) {
  std::mt19937 rng(13);
  const double s = 0.2 / std::sqrt(2.0);
  // The tilted cube's lowest corner 2 mm below the other box's top face (z = 0.1).
  const Vector3 tilt(0.5, 0.3, 0.0);
  double lowest = 0.0;
  for (int c = 0; c < 8; ++c) {
    const Vector3 corner(c & 1 ? 0.1 : -0.1, c & 2 ? 0.1 : -0.1, c & 4 ? 0.1 : -0.1);
    lowest = std::min(lowest, (expSO3(tilt) * corner).z());
  }
  const ShapePair cases[] = {
      {"sphere on a sphere", ShapeType::Sphere, Vector3(0.1, 0, 0), ShapeType::Sphere, Vector3(0.15, 0, 0),
       Vector3(0.1, -0.05, 0.2).normalized() * 0.248, Vector3(0.3, 0.1, -0.2), Vector3(-0.1, 0.2, 0.1)},
      {"sphere on a box's face", ShapeType::Sphere, Vector3(0.1, 0, 0), ShapeType::Box, Vector3(0.4, 0.3, 0.2),
       Vector3(0.05, -0.03, 0.198), Vector3::Zero(), Vector3(0.05, -0.02, 0.1)},
      {"sphere at a box's edge", ShapeType::Sphere, Vector3(0.1, 0, 0), ShapeType::Box, Vector3(0.4, 0.3, 0.2),
       Vector3(0.2 + s * 0.5 - 0.001, 0.02, 0.1 + s * 0.5 - 0.001), Vector3::Zero(), Vector3::Zero()},
      {"box corner in a box", ShapeType::Box, Vector3(0.2, 0.2, 0.2), ShapeType::Box, Vector3(0.4, 0.3, 0.2),
       Vector3(0.02, 0.01, 0.1 - 0.002 - lowest), tilt, Vector3(0.05, -0.02, 0.1)},
  };
  for (const ShapePair& c : cases) {
    for (const double mu : {2.0, 0.2}) {
      Simulator sim = pairApproaching(c, mu, rng);
      checkPairAgainstRebuilt(std::string(c.name) + (mu > 1.0 ? ", sticking" : ", sliding"), sim);
    }
  }
}

// Body contacts with a cylinder on either side (docs/derivatives.md, section 8: the cylinder's signed distance
// in its branches, and its rim points, which follow the direction between the two shapes' origins), against
// the centred rebuilds of every row (1e-7, as above: the rebuilds' truncation O((eps / L)^2) with L >= 0.05 m,
// the radius or distance over which a normal or rim direction turns, is at most 4e-8), and the analytic path
// taken: configuration_step, the rebuilds' step, changes nothing (configurationStepEffect exactly 0); and against
// the full step's centred differences (checkStep, 1e-6, every perturbed step keeping the active set). Random
// velocities from seed 17, mu 2 (sticking) and 0.2 (sliding on some contacts), bodies approaching, each shape
// tilted (no axis-aligned normal, whose tangent basis ties). Cylinders A (radius 0.05 m, 0.2 m long) and B (0.1 m, 0.3 m);
// the sphere (radius 0.1 m) is tested by its centre against cylinder B:
//   outside B's side (rho = 0.198: 2 mm in), outside its cap, outside its rim edge (0.07 m past the side and
//   the cap: 1 mm in, the normal from the rim circle);
// the points inside B (2 mm deep, from rows' deepest gap, pressed along the given direction):
//   a tilted cube's lowest corner in B's top cap (inside, nearer the cap: the normal is fixed in B),
//   a tilted cube's corner in the side of B lying on its side (inside, nearer the side: the normal turns with
//   the point's motion around the axis),
//   cylinder A's rim points on a tilted box (the rim points slide as the bodies move),
//   cylinder A's lower rim points in B's top cap (cylinder on cylinder, both directions tested),
//   cylinders A and B side by side, slightly crossed (A's rim points in B's side).
BOOST_AUTO_TEST_CASE(cylinder_contact_rows_match_rebuilt_rows) {
  std::mt19937 rng(17);
  const Vector3 sphere(0.1, 0, 0), cube(0.2, 0.2, 0.2), box(0.4, 0.3, 0.2), cyl_a(0.05, 0.2, 0), cyl_b(0.1, 0.3, 0);
  const Vector3 tilt_b(0.2, -0.15, 0.1);
  const Matrix3 R_b = expSO3(tilt_b);
  const Vector3 radial = Vector3(std::cos(0.7), std::sin(0.7), 0.0);
  const Vector3 rim = radial * (0.1 + 0.07) + Vector3(0.0, 0.0, 0.15 + 0.07);
  const Vector3 lying(M_PI / 2 + 0.1, 0.05, 0.1);  // B on its side
  const ShapePair cases[] = {
      {"sphere on a cylinder's side", ShapeType::Sphere, sphere, ShapeType::Cylinder, cyl_b,
       R_b * (0.198 * radial + Vector3(0.0, 0.0, 0.05)), Vector3(0.3, 0.1, -0.2), tilt_b},
      {"sphere on a cylinder's cap", ShapeType::Sphere, sphere, ShapeType::Cylinder, cyl_b,
       R_b * Vector3(0.03, -0.02, 0.15 + 0.098), Vector3(0.3, 0.1, -0.2), tilt_b},
      {"sphere at a cylinder's rim edge", ShapeType::Sphere, sphere, ShapeType::Cylinder, cyl_b, R_b * rim,
       Vector3(0.3, 0.1, -0.2), tilt_b},
      pressed({"cube corner in a cylinder's cap", ShapeType::Box, cube, ShapeType::Cylinder, cyl_b, Vector3::Zero(),
               Vector3(0.5, 0.3, 0.0), tilt_b},
              (R_b * Vector3(0.03, 0.02, 1.0)).normalized(), 0.1, 0.5, 0.002),
      pressed({"cube corner in a cylinder's side", ShapeType::Box, cube, ShapeType::Cylinder, cyl_b, Vector3::Zero(),
               Vector3(0.5, 0.3, 0.0), lying},
              Vector3(0.05, 0.02, 1.0).normalized(), 0.1, 0.5, 0.002),
      pressed({"cylinder on a box", ShapeType::Cylinder, cyl_a, ShapeType::Box, box, Vector3::Zero(),
               Vector3(0.3, -0.2, 0.0), Vector3(0.05, -0.02, 0.1)},
              Vector3(0.1, 0.05, 1.0).normalized(), 0.05, 0.5, 0.002),
      pressed({"cylinder on a cylinder's cap", ShapeType::Cylinder, cyl_a, ShapeType::Cylinder, cyl_b, Vector3::Zero(),
               Vector3(0.3, -0.2, 0.0), tilt_b},
              (R_b * Vector3(0.04, -0.02, 1.0)).normalized(), 0.1, 0.5, 0.002),
      pressed({"cylinders side by side", ShapeType::Cylinder, cyl_a, ShapeType::Cylinder, cyl_b, Vector3::Zero(),
               Vector3(0.05, 0.1, 0.0), Vector3(-0.05, 0.02, 0.0)},
              Vector3(1.0, 0.1, 0.02).normalized(), 0.1, 0.3, 0.002),
  };
  for (const ShapePair& c : cases) {
    for (const double mu : {2.0, 0.2}) {
      Simulator sim = pairApproaching(c, mu, rng);
      const std::string name = std::string(c.name) + (mu > 1.0 ? ", mu 2" : ", mu 0.2");
      BOOST_TEST_MESSAGE(name << ": deepest gap " << deepestGap(c));
      checkPairAgainstRebuilt(name, sim);
      BOOST_TEST(configurationStepEffect(sim, 1e-3) == 0.0, name << ": a row was rebuilt");
      checkStep(name, sim, 1e-3);
    }
  }
}

// Degenerate geometry, where a body contact's row has no derivative and is rebuilt (configurationStepEffect > 0):
// a cylinder standing upright and centred on a box (the direction between the origins along its axis, so its
// rim points have no preferred direction), a sphere's centre inside a cylinder exactly as near its side as its
// cap (2^-7 m from both: exact in binary), and a sphere's centre on the axis of a long cylinder (its radial
// direction undefined). The rebuilt rows' differences are meaningless there (their rim points or normals jump
// between q (+) eps and q (-) eps) but finite: A and B must be finite.
BOOST_AUTO_TEST_CASE(degenerate_cylinder_contacts_are_rebuilt) {
  const Vector3 sphere(0.01, 0, 0);
  const double in = 0.0078125;
  const ShapePair cases[] = {
      {"cylinder upright on a box's centre", ShapeType::Cylinder, Vector3(0.05, 0.2, 0), ShapeType::Box,
       Vector3(0.4, 0.3, 0.2), Vector3(0.0, 0.0, 0.198), Vector3::Zero(), Vector3::Zero()},
      {"sphere centre tied between a cylinder's side and cap", ShapeType::Sphere, sphere, ShapeType::Cylinder,
       Vector3(0.25, 0.5, 0), Vector3(0.25 - in, 0.0, 0.25 - in), Vector3::Zero(), Vector3::Zero()},
      {"sphere centre on a cylinder's axis", ShapeType::Sphere, Vector3(0.1, 0, 0), ShapeType::Cylinder,
       Vector3(0.05, 0.5, 0), Vector3(0.0, 0.0, 0.01), Vector3::Zero(), Vector3::Zero()},
  };
  for (const ShapePair& c : cases) {
    Simulator sim = pairAtRest(c, 0.8);
    sim.v.segment<3>(3) << 0.01, 0.02, -0.1;
    Simulator stepped = sim;
    SimulatorStepJacobians jacobians(stepped);
    jacobians.step(stepped, 1e-3);
    BOOST_TEST_MESSAGE(c.name << ": " << stepped.statistics().contacts << " contacts, " << stepped.rows().size() << " rows");
    BOOST_REQUIRE(stepped.statistics().contacts > 0);
    BOOST_TEST(jacobians.A.allFinite(), c.name);
    BOOST_TEST(jacobians.B.allFinite(), c.name);
    BOOST_TEST(configurationStepEffect(sim, 1e-3) > 0.0, c.name << ": no row was rebuilt");
  }
}
