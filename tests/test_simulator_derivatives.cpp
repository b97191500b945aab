#define BOOST_TEST_MODULE simulator_derivatives
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "abdyn/integrators/simulator.hpp"
#include "abdyn/integrators/simulator_step_derivatives.hpp"
#include "abdyn/integrators/step_derivatives.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/model_builder.hpp"
#include "abdyn/model/random_model.hpp"
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
    Simulator sim = start;
    Eigen::VectorXd e = Eigen::VectorXd::Zero(n);
    e[column % n] = sign * kEps;
    if (column < n) sim.q = integrate(model, start.q, e, 1.0);
    else if (column < 2 * n) sim.v += e;
    else sim.tau += e;
    sim.step(h);
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

SimulatorSettings tightSettings() {
  SimulatorSettings settings;
  settings.solver.tolerance = 1e-14;
  settings.solver.max_iterations = 5000;
  return settings;
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

// A floating ball (radius 0.1 m, 1 kg) carrying its own collision sphere.
Model floatingBall() {
  ModelBuilder b("ball");
  JointSpec free;
  free.type = JointType::Floating;
  free.name = "free";
  const int body = b.addBody(0, free, Plx(), RigidBodyInertia(1.0, Vector3::Zero(), Matrix3::Identity() * 4e-3), "ball");
  Geometry g;
  g.name = "ball_collision";
  g.link = "ball";
  g.body = body;
  g.shape = ShapeType::Sphere;
  g.size = Vector3(0.1, 0, 0);
  b.addGeometry(g);
  return b.build();
}

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
  SimulatorSettings settings = tightSettings();
  settings.ground = true;
  settings.contact.mu = 2.0;
  Simulator sim(test::floatingBox(Vector3(0.4, 0.3, 0.2), 2.0, Vector3(0.0, 0.0, -9.81)), settings);
  sim.q[2] = 0.098;
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
  ModelBuilder b("rod");
  JointSpec free;
  free.type = JointType::Floating;
  free.name = "free";
  b.addBody(0, free, Plx(), RigidBodyInertia(1.0, Vector3(0, 0, -0.5), Vector3(0.08, 0.08, 0.01).asDiagonal()), "rod");
  for (const ResponseMethod method : {ResponseMethod::Articulated, ResponseMethod::Factorized}) {
    SimulatorSettings settings = tightSettings();
    settings.response = method;
    Simulator sim(b.build(), settings);
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
