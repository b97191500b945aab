#define BOOST_TEST_MODULE implicit_damping
#include <boost/test/unit_test.hpp>

#include <Eigen/Cholesky>

#include <cmath>
#include <random>

#include "abdyn/algorithms/aba.hpp"
#include "abdyn/algorithms/center_of_mass.hpp"
#include "abdyn/algorithms/crba.hpp"
#include "abdyn/algorithms/forward_dynamics_crba.hpp"
#include "abdyn/algorithms/rnea.hpp"
#include "abdyn/integrators/explicit_euler.hpp"
#include "abdyn/integrators/implicit_damping_euler.hpp"
#include "abdyn/integrators/runge_kutta4.hpp"
#include "abdyn/integrators/semi_implicit_euler.hpp"
#include "abdyn/integrators/simulator.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/model_builder.hpp"
#include "abdyn/model/random_model.hpp"
#include "test_helpers.hpp"

// The implicit-damping step (integrators/implicit_damping_euler.hpp): (M + h D) dv = h (f - D v).
// Checked against a dense solve of that system, against closed forms of a damped oscillator and of a
// pure damper, for its first order, for stability where explicit schemes diverge, and in the Simulator.

using namespace abdyn;
using namespace abdyn::test;

namespace {

// A point-like slider on a horizontal prismatic x joint (gravity along -z does no work on it) with
// viscous damping d; an optional spring tau = -k q comes in as a joint force.
Model slider(double mass, double damping) {
  ModelBuilder b("slider");
  JointSpec joint;
  joint.type = JointType::Prismatic;
  joint.name = "slide";
  joint.axis = Vector3::UnitX();
  joint.damping = damping;
  b.addBody(0, joint, Plx(), RigidBodyInertia(mass, Vector3::Zero(), Matrix3::Identity() * 1e-4), "mass");
  return b.build();
}

// Three light links (10 g, 5 cm: a finger) hinged about y in a chain under gravity, damping d on each:
// the decay rates d / I of the hinges reach about 2e4 / s for d = 0.05 (docs/integrators.md), so h = 1 ms
// spans up to 20 decay times.
Model finger(double damping) {
  ModelBuilder b("finger");
  int parent = 0;
  for (int k = 0; k < 3; ++k) {
    JointSpec hinge;
    hinge.name = "hinge" + std::to_string(k);
    hinge.axis = Vector3::UnitY();
    hinge.damping = damping;
    const double m = 0.01, l = 0.05;
    const Matrix3 Ic = Vector3(m * l * l / 12, m * l * l / 12, 1e-8).asDiagonal();
    parent = b.addBody(parent, hinge, Plx(Matrix3::Identity(), Vector3(k == 0 ? 0.0 : l, 0, 0)),
                       RigidBodyInertia(m, Vector3(l / 2, 0, 0), Ic), "link" + std::to_string(k));
  }
  return b.build();
}

}  // namespace

// ABA, CRBA and RNEA with implicit_damping_step = h agree with a dense solve of (M + h D) a = f - D v,
// M from massMatrix without the option and f = tau - C v - g from RNEA, on random trees of every joint
// type with random damping and armature. Tolerance 1e-10 relative: these trees have cond(M) below about
// 1e4, so two O(n) solves of the same system differ by at most cond * n * eps ~ 1e-10.
BOOST_AUTO_TEST_CASE(forward_dynamics_solve_m_plus_h_d) {
  std::mt19937 rng(1507);
  for (int trial = 0; trial < 8; ++trial) {
    RandomTreeOptions options;
    options.bodies = 9;
    options.floating_base = trial % 2 == 1;
    options.all_joint_types = true;
    options.joint_dynamics = true;
    const Model model = randomTree(options, rng);
    Data data(model);
    const Eigen::VectorXd q = randomConfiguration(model, rng);
    const Eigen::VectorXd v = Eigen::VectorXd::Random(model.nv());
    const Eigen::VectorXd tau = Eigen::VectorXd::Random(model.nv());
    for (const double h : {1e-3, 0.5}) {
      const Eigen::MatrixXd M = massMatrix(model, data, q);
      const Eigen::VectorXd bias = nonlinearEffects(model, data, q, v);  // C v + g + D v
      const Eigen::MatrixXd K = M + h * Eigen::MatrixXd(model.damping().asDiagonal());
      const Eigen::VectorXd expected = K.ldlt().solve(tau - bias);
      DynamicsOptions implicit;
      implicit.implicit_damping_step = h;
      const Eigen::VectorXd aba = forwardDynamics(model, data, q, v, tau, implicit);
      ABDYN_CHECK_REL(aba, expected, 1e-10);
      const Eigen::VectorXd crba = forwardDynamicsCrba(model, data, q, v, tau, implicit);
      ABDYN_CHECK_REL(crba, expected, 1e-10);
      ABDYN_CHECK_REL(massMatrix(model, data, q, implicit), K, 1e-14);
      ABDYN_CHECK_REL(inverseDynamics(model, data, q, v, aba, implicit), tau, 1e-10);

      // The step: M (v+ - v) = h (f - D v+), q+ = q (+) h v+.
      Eigen::VectorXd q1 = q, v1 = v;
      ImplicitDampingEuler integrator(model);
      integrator.step(model, data, q1, v1, tau, h);
      ABDYN_CHECK_REL((M * (v1 - v)).eval(), (h * (tau - bias + model.damping().cwiseProduct(v - v1))).eval(), 1e-10);
      Eigen::VectorXd q_expected(model.nq());
      integrate(model, q, v1, h, q_expected);
      ABDYN_CHECK_REL(q1, q_expected, 1e-14);
    }
  }
}

BOOST_AUTO_TEST_CASE(bad_implicit_damping_step_is_refused) {
  const Model model = slider(1.0, 1.0);
  Data data(model);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(1);
  for (const double bad : {-1e-3, std::nan(""), HUGE_VAL}) {
    DynamicsOptions options;
    options.implicit_damping_step = bad;
    BOOST_CHECK_THROW(forwardDynamics(model, data, zero, zero, zero, options), InvalidArgument);
    BOOST_CHECK_THROW(forwardDynamicsCrba(model, data, zero, zero, zero, options), InvalidArgument);
    BOOST_CHECK_THROW(massMatrix(model, data, zero, options), InvalidArgument);
  }
}

// First order on a damped harmonic oscillator (m = 2 kg, k = 50 N/m, d = 4 N s/m: w0 = 5 rad/s, decay
// sigma = d / 2m = 1 / s, damped frequency wd = sqrt(w0^2 - sigma^2)), whose solution from (x0, v0) is
//   x(t) = exp(-sigma t) (x0 cos(wd t) + (v0 + sigma x0) / wd sin(wd t)).
// Halving h halves the error at T = 2 s: the observed order log2(e(h) / e(h/2)) lies in [0.9, 1.1].
BOOST_AUTO_TEST_CASE(first_order_on_a_damped_oscillator) {
  const double m = 2.0, k = 50.0, d = 4.0, x0 = 0.3, v0 = -0.5, T = 2.0;
  const Model model = slider(m, d);
  const JointForceFunction spring = [k](const Eigen::VectorXd& q, const Eigen::VectorXd&, Eigen::VectorXd& tau) {
    tau = -k * q;
  };
  const double sigma = d / (2 * m), wd = std::sqrt(k / m - sigma * sigma);
  const double x_exact = std::exp(-sigma * T) * (x0 * std::cos(wd * T) + (v0 + sigma * x0) / wd * std::sin(wd * T));
  const auto error = [&](int steps) {
    Data data(model);
    ImplicitDampingEuler integrator(model);
    Eigen::VectorXd q = Eigen::VectorXd::Constant(1, x0), v = Eigen::VectorXd::Constant(1, v0);
    for (int s = 0; s < steps; ++s) integrator.step(model, data, q, v, spring, T / steps);
    return std::abs(q[0] - x_exact);
  };
  double previous = error(200);
  for (const int steps : {400, 800, 1600}) {
    const double e = error(steps);
    const double order = std::log2(previous / e);
    BOOST_TEST_MESSAGE(steps << " steps: error " << e << ", observed order " << order);
    BOOST_TEST(order >= 0.9);
    BOOST_TEST(order <= 1.1);
    previous = e;
  }
}

// A pure damper (no spring, m = 10 g, d = 10 N s/m: rate lambda = d / m = 1000 / s) at h = 10 ms, so
// h lambda = 10. The implicit step multiplies v by exactly 1 / (1 + h lambda) per step (the header's
// closed form) and comes to rest where the exact solution does, x0 + v0 / lambda (the geometric sum
// h v0 sum_k r^k = v0 / lambda); RK4 and explicit Euler, whose factors at h lambda = 10 are 291.7 and -9
// in magnitude, grow by orders of magnitude in 10 steps.
BOOST_AUTO_TEST_CASE(stable_where_explicit_schemes_diverge) {
  const double m = 0.01, d = 10.0, h = 0.01, v0 = 2.0, lambda = d / m;
  const Model model = slider(m, d);
  Data data(model);
  const Eigen::VectorXd tau = Eigen::VectorXd::Zero(1);
  ImplicitDampingEuler implicit(model);
  Eigen::VectorXd q = Eigen::VectorXd::Zero(1), v = Eigen::VectorXd::Constant(1, v0);
  const double r = 1.0 / (1.0 + h * lambda);
  for (int s = 1; s <= 40; ++s) {
    implicit.step(model, data, q, v, tau, h);
    BOOST_TEST(v[0] == v0 * std::pow(r, s), boost::test_tools::tolerance(1e-12));
  }
  BOOST_TEST(q[0] == v0 / lambda, boost::test_tools::tolerance(1e-12));

  RungeKutta4 rk4(model);
  ExplicitEuler euler(model);
  Eigen::VectorXd q_rk = Eigen::VectorXd::Zero(1), v_rk = Eigen::VectorXd::Constant(1, v0);
  Eigen::VectorXd q_eu = q_rk, v_eu = v_rk;
  for (int s = 0; s < 10; ++s) {
    rk4.step(model, data, q_rk, v_rk, tau, h);
    euler.step(model, data, q_eu, v_eu, tau, h);
  }
  BOOST_TEST(std::abs(v_rk[0]) > 1e6 * v0);
  BOOST_TEST(std::abs(v_eu[0]) > 1e6 * v0);
}

// The stiff finger (h lambda about 20 at 1 ms) released from a bent pose falls under gravity for 0.5 s:
// the implicit step stays finite and its mechanical energy never rises by more than its O(h) oscillation
// (1e-9 J here, against the 5e-3 J it starts with), while RK4 at the same step blows up (or stops with
// an error once its state is no longer finite).
BOOST_AUTO_TEST_CASE(stiff_multibody_finger) {
  const Model model = finger(0.05);
  Data data(model);
  const Eigen::VectorXd tau = Eigen::VectorXd::Zero(model.nv());
  const Eigen::VectorXd q0 = Eigen::Vector3d(0.4, 0.6, -0.3);
  const double h = 1e-3;
  ImplicitDampingEuler implicit(model);
  Eigen::VectorXd q = q0, v = Eigen::VectorXd::Zero(model.nv());
  double energy = mechanicalEnergy(model, data, q, v);
  const double start = energy;
  for (int s = 0; s < 500; ++s) {
    implicit.step(model, data, q, v, tau, h);
    const double next = mechanicalEnergy(model, data, q, v);
    BOOST_TEST(next <= energy + 1e-9);
    energy = next;
  }
  BOOST_TEST(q.allFinite());
  BOOST_TEST(energy < start);

  RungeKutta4 rk4(model);
  Eigen::VectorXd q_rk = q0, v_rk = Eigen::VectorXd::Zero(model.nv());
  bool diverged = false;
  try {
    for (int s = 0; s < 500 && !diverged; ++s) {
      rk4.step(model, data, q_rk, v_rk, tau, h);
      diverged = !v_rk.allFinite() || v_rk.norm() > 1e6;
    }
  } catch (const Error&) {
    diverged = true;  // a non-finite stage state reaches the dynamics' checks
  }
  BOOST_TEST(diverged);
}

// At small steps the implicit step agrees with the explicit schemes: on a random tree with damping and
// armature over 0.2 s, its distance to RK4 (at the same steps, whose own error is O(h^4), negligible
// here) shrinks in proportion to h (first order: the ratio of successive halvings lies in [1.8, 2.2]),
// and at h = 1e-4 it is below 1e-3 of the state's size.
BOOST_AUTO_TEST_CASE(agrees_with_explicit_schemes_at_small_steps) {
  std::mt19937 rng(16);
  RandomTreeOptions options;
  options.bodies = 6;
  options.joint_dynamics = true;
  const Model model = randomTree(options, rng);
  const Eigen::VectorXd q0 = randomConfiguration(model, rng);
  const Eigen::VectorXd v0 = Eigen::VectorXd::Random(model.nv());
  const Eigen::VectorXd tau = Eigen::VectorXd::Zero(model.nv());
  const double T = 0.2;
  const auto run = [&](auto& integrator, int steps) {
    Data data(model);
    Eigen::VectorXd q = q0, v = v0;
    for (int s = 0; s < steps; ++s) integrator.step(model, data, q, v, tau, T / steps);
    Eigen::VectorXd state(2 * model.nv());
    state << difference(model, q0, q), v;
    return state;
  };
  ImplicitDampingEuler implicit(model);
  RungeKutta4 rk4(model);
  double previous = 0.0, last = 0.0;
  Eigen::VectorXd reference;
  for (const int steps : {500, 1000, 2000}) {
    reference = run(rk4, steps);
    const double distance = (run(implicit, steps) - reference).norm();
    if (previous > 0.0) {
      BOOST_TEST(previous / distance >= 1.8);
      BOOST_TEST(previous / distance <= 2.2);
    }
    previous = last = distance;
  }
  BOOST_TEST(last <= 1e-3 * reference.norm());
  // Without damping the step is semi-implicit Euler's, to rounding.
  DynamicsOptions undamped;
  undamped.damping = false;
  Data data(model);
  Eigen::VectorXd q1 = q0, v1 = v0, q2 = q0, v2 = v0;
  SemiImplicitEuler semi(model);
  for (int s = 0; s < 10; ++s) {
    implicit.step(model, data, q1, v1, tau, 1e-3, undamped);
    semi.step(model, data, q2, v2, tau, 1e-3, undamped);
  }
  ABDYN_CHECK_REL(v1, v2, 1e-13);
}

// The Simulator takes the damping implicitly by default: the pure damper of the test above decays by
// exactly 1 / (1 + h lambda) per step, with or without sub-steps; with implicit_damping off it diverges
// and says so (an abdyn::Error naming the time), rather than returning NaN.
BOOST_AUTO_TEST_CASE(simulator_takes_damping_implicitly) {
  const double m = 0.01, d = 10.0, h = 0.01, v0 = 2.0, lambda = d / m;
  for (const int substeps : {1, 4}) {
    SimulatorSettings settings;
    settings.substeps = substeps;
    Simulator sim(slider(m, d), settings);
    sim.v[0] = v0;
    for (int s = 1; s <= 10; ++s) sim.step(h);
    const double r = 1.0 / (1.0 + h / substeps * lambda);
    BOOST_TEST(sim.v[0] == v0 * std::pow(r, 10 * substeps), boost::test_tools::tolerance(1e-12));
  }
  SimulatorSettings explicit_settings;
  explicit_settings.implicit_damping = false;
  Simulator sim(slider(m, d), explicit_settings);
  sim.v[0] = v0;
  bool diverged = false;
  try {
    for (int s = 0; s < 2000; ++s) sim.step(h);
  } catch (const Error& e) {
    diverged = std::string(e.what()).find("diverged at t = ") != std::string::npos;
  }
  BOOST_TEST(diverged);
}

// With ground contact and joint limits, the finger's stiff damping stays stable in the Simulator at 1 ms.
BOOST_AUTO_TEST_CASE(simulator_with_limits_on_a_stiff_model) {
  ModelBuilder b("stiff");
  JointSpec hinge;
  hinge.name = "hinge";
  hinge.axis = Vector3::UnitY();
  hinge.damping = 0.05;
  hinge.lower = -0.5;
  hinge.upper = 0.5;
  const double m = 0.01, l = 0.05;
  b.addBody(0, hinge, Plx(), RigidBodyInertia(m, Vector3(l / 2, 0, 0), Vector3(1e-8, m * l * l / 12, m * l * l / 12).asDiagonal()),
            "link");
  SimulatorSettings settings;
  settings.joint_limits = true;
  Simulator sim(b.build(), settings);
  sim.v[0] = 5.0;
  for (int s = 0; s < 500; ++s) sim.step(1e-3);
  BOOST_TEST(sim.q.allFinite());
  BOOST_TEST(sim.q[0] >= -0.5 - 0.01);
  BOOST_TEST(sim.q[0] <= 0.5 + 0.01);
}
