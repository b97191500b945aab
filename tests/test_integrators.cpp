#define BOOST_TEST_MODULE integrators
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <limits>

#include "abdyn/algorithms/center_of_mass.hpp"
#include "abdyn/integrators/adaptive_runge_kutta4.hpp"
#include "abdyn/integrators/explicit_euler.hpp"
#include "abdyn/integrators/implicit_midpoint.hpp"
#include "abdyn/integrators/runge_kutta4.hpp"
#include "abdyn/integrators/semi_implicit_euler.hpp"
#include "abdyn/integrators/substeps.hpp"
#include "abdyn/io/urdf.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/model_builder.hpp"
#include "abdyn/model/random_model.hpp"
#include "test_helpers.hpp"

using namespace abdyn;
using namespace abdyn::test;

namespace {

// A 2 kg point-like slider on a horizontal prismatic x joint (gravity is along -z, so it does no work);
// the spring tau = -k q is written here, as a joint force. Angular frequency w = sqrt(k / m) = 5 rad/s.
constexpr double kMass = 2.0, kStiffness = 50.0;
Model slider() {
  ModelBuilder b("oscillator");
  JointSpec joint;
  joint.type = JointType::Prismatic;
  joint.name = "slide";
  joint.axis = Vector3::UnitX();
  b.addBody(0, joint, Plx(), RigidBodyInertia(kMass, Vector3::Zero(), Matrix3::Identity() * 0.01), "mass");
  return b.build();
}
void spring(const Eigen::VectorXd& q, const Eigen::VectorXd&, Eigen::VectorXd& tau) { tau = -kStiffness * q; }
double oscillatorEnergy(const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  return 0.5 * kMass * v[0] * v[0] + 0.5 * kStiffness * q[0] * q[0];
}

// The end state (exponential coordinates of q relative to q0, and v) after time T in `steps` steps.
template <class Integrator>
Eigen::VectorXd endState(Integrator& integrator, const Model& model, const Eigen::VectorXd& q0,
                         const Eigen::VectorXd& v0, double T, int steps) {
  Data data(model);
  const Eigen::VectorXd tau = Eigen::VectorXd::Zero(model.nv());
  Eigen::VectorXd q = q0, v = v0;
  for (int k = 0; k < steps; ++k) integrator.step(model, data, q, v, tau, T / steps);
  Eigen::VectorXd state(2 * model.nv());
  state << difference(model, q0, q), v;
  return state;
}

// Observed orders log2(e(N) / e(2N)) and log2(e(2N) / e(4N)) against a fine RK4 reference.
template <class Integrator>
std::pair<double, double> observedOrders(const Model& model, const Eigen::VectorXd& q0, const Eigen::VectorXd& v0,
                                         double T, int N, const char* label) {
  Integrator integrator(model);
  RungeKutta4 rk(model);
  const Eigen::VectorXd reference = endState(rk, model, q0, v0, T, 6400);
  const double e1 = (endState(integrator, model, q0, v0, T, N) - reference).norm();
  const double e2 = (endState(integrator, model, q0, v0, T, 2 * N) - reference).norm();
  const double e3 = (endState(integrator, model, q0, v0, T, 4 * N) - reference).norm();
  const std::pair<double, double> orders(std::log2(e1 / e2), std::log2(e2 / e3));
  BOOST_TEST_MESSAGE(label << ": errors " << e1 << " " << e2 << " " << e3 << ", observed orders " << orders.first
                           << " " << orders.second);
  return orders;
}

}  // namespace

// Orders of convergence on the frictionless pendulum (1 s from 1 rad at rest): halving h divides the
// error by 2^p with p = 1, 1, 2, 4.
BOOST_AUTO_TEST_CASE(pendulum_orders_of_convergence) {
  const Model model = pendulum();
  Eigen::VectorXd q0(1), v0(1);
  q0 << 1.0;
  v0 << 0.0;
  const auto ee = observedOrders<ExplicitEuler>(model, q0, v0, 1.0, 400, "explicit Euler");
  const auto se = observedOrders<SemiImplicitEuler>(model, q0, v0, 1.0, 400, "semi-implicit Euler");
  const auto im = observedOrders<ImplicitMidpoint>(model, q0, v0, 1.0, 50, "implicit midpoint");
  const auto rk = observedOrders<RungeKutta4>(model, q0, v0, 1.0, 25, "RK4");
  for (double p : {ee.first, ee.second, se.first, se.second}) BOOST_TEST(std::abs(p - 1.0) < 0.1);
  for (double p : {im.first, im.second}) BOOST_TEST(std::abs(p - 2.0) < 0.1);
  for (double p : {rk.first, rk.second}) BOOST_TEST(p > 3.7);
}

// The same orders on a floating random tree with every joint type (quaternion joints move through the
// exponential map, so the orders hold on the manifold) and the quaternions stay unit.
BOOST_AUTO_TEST_CASE(floating_tree_orders_on_the_manifold) {
  std::mt19937 rng(11);
  const Model model = randomTree({4, false, true, true, false}, rng);
  const Eigen::VectorXd q0 = randomConfiguration(model, rng);
  const Eigen::VectorXd v0 = Eigen::VectorXd::Random(model.nv());
  const auto ee = observedOrders<ExplicitEuler>(model, q0, v0, 0.5, 800, "explicit Euler (floating tree)");
  const auto se = observedOrders<SemiImplicitEuler>(model, q0, v0, 0.5, 800, "semi-implicit Euler (floating tree)");
  const auto im = observedOrders<ImplicitMidpoint>(model, q0, v0, 0.5, 50, "implicit midpoint (floating tree)");
  for (double p : {ee.first, ee.second, se.first, se.second}) BOOST_TEST(std::abs(p - 1.0) < 0.15);
  for (double p : {im.first, im.second}) BOOST_TEST(std::abs(p - 2.0) < 0.15);

  ImplicitMidpoint midpoint(model);
  Data data(model);
  Eigen::VectorXd q = q0, v = v0;
  const Eigen::VectorXd tau = Eigen::VectorXd::Zero(model.nv());
  for (int k = 0; k < 200; ++k) midpoint.step(model, data, q, v, tau, 0.01);
  Eigen::VectorXd q_normalized = q;
  normalize(model, q_normalized);
  BOOST_TEST((q - q_normalized).norm() < 1e-12);
}

// Harmonic oscillator over 20 periods at h w = 0.05: explicit Euler's energy grows by exactly
// (1 + (h w)^2) per step (the update matrix [1 h; -w^2 h 1] has determinant 1 + (h w)^2 and, on this
// system, scales the energy norm uniformly); symplectic Euler's stays within O(h w) of its start; implicit
// midpoint's (a quadratic invariant) is conserved to the Newton tolerance.
BOOST_AUTO_TEST_CASE(oscillator_energy_behaviour) {
  const Model model = slider();
  const double w = std::sqrt(kStiffness / kMass), h = 0.05 / w;
  const int steps = static_cast<int>(std::round(20 * 2 * M_PI / w / h));
  Eigen::VectorXd q0(1), v0(1);
  q0 << 0.3;
  v0 << 0.0;
  const double E0 = oscillatorEnergy(q0, v0);
  Data data(model);

  ExplicitEuler explicit_euler(model);
  Eigen::VectorXd q = q0, v = v0;
  for (int k = 0; k < steps; ++k) explicit_euler.step(model, data, q, v, spring, h);
  const double growth = oscillatorEnergy(q, v) / E0, expected_growth = std::pow(1.0 + h * h * w * w, steps);
  BOOST_TEST_MESSAGE("explicit Euler: energy x" << growth << " after " << steps << " steps (closed form x" << expected_growth << ")");
  BOOST_TEST(std::abs(growth - expected_growth) / expected_growth < 1e-9);
  BOOST_TEST(growth > 1.5);

  // The largest relative energy error over the run of one integrator from (q0, v0).
  const auto worstEnergyError = [&](auto& integrator) {
    Eigen::VectorXd q_k = q0, v_k = v0;
    double worst = 0.0;
    for (int k = 0; k < steps; ++k) {
      integrator.step(model, data, q_k, v_k, spring, h);
      worst = std::max(worst, std::abs(oscillatorEnergy(q_k, v_k) - E0) / E0);
    }
    return worst;
  };
  SemiImplicitEuler semi_implicit_euler(model);
  const double worst_symplectic = worstEnergyError(semi_implicit_euler);
  BOOST_TEST_MESSAGE("semi-implicit Euler: worst relative energy error " << worst_symplectic);
  // It conserves m v^2 + k q^2 - h k q v exactly, which differs from 2E by at most (h w / 2) 2E.
  BOOST_TEST(worst_symplectic < 1.1 * 0.5 * h * w / (1.0 - 0.5 * h * w));

  ImplicitMidpoint midpoint(model);
  const double worst_midpoint = worstEnergyError(midpoint);
  BOOST_TEST_MESSAGE("implicit midpoint: worst relative energy error " << worst_midpoint);
  BOOST_TEST(worst_midpoint < 1e-10);
}

// Sub-stepping: n steps of h / n, the same as the integrator called n times by hand; and explicit
// Euler's error on the pendulum falls about tenfold with ten sub-steps (first order).
BOOST_AUTO_TEST_CASE(substeps_refine_the_step) {
  const Model model = pendulum();
  Data data(model);
  ExplicitEuler euler(model);
  const Eigen::VectorXd tau = Eigen::VectorXd::Zero(1);
  Eigen::VectorXd q0(1), v0(1);
  q0 << 1.0;
  v0 << 0.0;
  Eigen::VectorXd q_sub = q0, v_sub = v0, q_hand = q0, v_hand = v0;
  stepWithSubsteps(euler, model, data, q_sub, v_sub, tau, 0.01, 4, DynamicsOptions{});
  for (int k = 0; k < 4; ++k) euler.step(model, data, q_hand, v_hand, tau, 0.01 / 4);
  BOOST_TEST((q_sub - q_hand).norm() < 1e-15);
  BOOST_TEST((v_sub - v_hand).norm() < 1e-15);

  RungeKutta4 rk(model);
  const Eigen::VectorXd reference = endState(rk, model, q0, v0, 1.0, 2000);
  const auto run = [&](int substeps) {
    Eigen::VectorXd q = q0, v = v0;
    for (int k = 0; k < 100; ++k) stepWithSubsteps(euler, model, data, q, v, tau, 0.01, substeps, DynamicsOptions{});
    Eigen::VectorXd state(2);
    state << difference(model, q0, q), v;
    return (state - reference).norm();
  };
  const double ratio = run(1) / run(10);
  BOOST_TEST_MESSAGE("explicit Euler error ratio, 1 vs 10 sub-steps: " << ratio);
  BOOST_TEST(ratio > 8.0);
  BOOST_TEST(ratio < 12.0);
}

BOOST_AUTO_TEST_CASE(bad_arguments_throw) {
  const Model model = slider();
  Data data(model);
  Eigen::VectorXd q(1), v(1);
  q << 0.1;
  v << 0.0;
  const Eigen::VectorXd tau = Eigen::VectorXd::Zero(1);
  ExplicitEuler explicit_euler(model);
  SemiImplicitEuler semi_implicit_euler(model);
  ImplicitMidpoint midpoint(model);
  BOOST_CHECK_THROW(explicit_euler.step(model, data, q, v, tau, 0.0), InvalidArgument);
  BOOST_CHECK_THROW(semi_implicit_euler.step(model, data, q, v, tau, -1.0), InvalidArgument);
  BOOST_CHECK_THROW(midpoint.step(model, data, q, v, tau, std::nan("")), InvalidArgument);
  BOOST_CHECK_THROW(midpoint.step(model, data, q, v, Eigen::VectorXd::Zero(2), 0.01), InvalidArgument);
  BOOST_CHECK_THROW(stepWithSubsteps(explicit_euler, model, data, q, v, tau, 0.01, 0, DynamicsOptions{}), InvalidArgument);
  BOOST_CHECK_THROW(ImplicitMidpoint(model, ImplicitMidpointSettings{0.0, 10, 1e-7}), InvalidArgument);
  // One Newton iteration cannot solve a nonlinear step of the pendulum to 1e-14.
  const Model pend = pendulum();
  Data pend_data(pend);
  ImplicitMidpoint one_iteration(pend, ImplicitMidpointSettings{1e-14, 1, 1e-7});
  Eigen::VectorXd qp(1), vp(1);
  qp << 2.0;
  vp << 3.0;
  BOOST_CHECK_THROW(one_iteration.step(pend, pend_data, qp, vp, Eigen::VectorXd::Zero(1), 0.5), Error);
}

// The ginger_robot pattern (tests/models/whip_finger.urdf, written for the test): an undamped
// finger whose tip is a point mass, on a heavy falling body, whips to hundreds of rad/s. Fixed-step RK4
// at 1 ms diverges (t = 0.62 s); the error-controlled RK4 covers the same 1 ms steps with shorter
// sub-steps where the finger is fast. Checked against what does not depend on the integrator: the
// energy, which the exact motion conserves (drift below 1e-6 of the energy scale m g L = 327 J), and,
// up to t = 0.3 s, before the whip makes the motion chaotic (RK4 references at 1e-5 s and 5e-6 s
// themselves part after 0.55 s), RK4 at 1e-5 s, whose error is ~1e-9 there: the tolerance 1e-4 rad and
// 1e-4 (1 + |v|) allows the controller's 1e-6 local tolerance summed over the run.
BOOST_AUTO_TEST_CASE(adaptive_rk4_follows_a_whipping_finger) {
  const Model model = loadUrdf(std::string(ABDYN_SOURCE_DIR) + "/tests/models/whip_finger.urdf");
  Data data(model);
  const Eigen::VectorXd tau = Eigen::VectorXd::Zero(model.nv());
  const Eigen::VectorXd q0 = neutral(model), v0 = Eigen::VectorXd::Zero(model.nv());
  const double E0 = mechanicalEnergy(model, data, q0, v0);
  const double scale = model.totalMass() * 9.81 * 1.557;  // lifting the model by its length (1.557 m)

  // Fixed-step RK4 at 1 ms cannot follow the whip: its energy drifts by more than 1e-4 of the scale or
  // turns non-finite (which of the two, and when, depends on rounding: the motion is chaotic; the
  // build of 4100734 diverges at step 624, an older build of the program loses 0.27 J instead).
  RungeKutta4 rk(model);
  Eigen::VectorXd q = q0, v = v0;
  double fixed_drift = 0.0;
  for (int k = 1; k <= 1000 && std::isfinite(fixed_drift); ++k) {
    try {
      rk.step(model, data, q, v, tau, 1e-3);
    } catch (const Error&) {  // a stage reached a state where ABA has no finite pivot: diverged
      fixed_drift = std::numeric_limits<double>::infinity();
      break;
    }
    const double E = q.allFinite() && v.allFinite() ? mechanicalEnergy(model, data, q, v) : std::nan("");
    fixed_drift = std::isfinite(E) ? std::max(fixed_drift, std::abs(E - E0)) : std::numeric_limits<double>::infinity();
  }
  BOOST_TEST_MESSAGE("fixed-step RK4 at 1 ms: worst energy drift " << fixed_drift << " J");
  BOOST_TEST(fixed_drift > 1e-4 * scale);

  // The reference up to 0.3 s.
  Eigen::VectorXd q_ref = q0, v_ref = v0;
  for (int k = 0; k < 30000; ++k) rk.step(model, data, q_ref, v_ref, tau, 1e-5);

  AdaptiveRungeKutta4 adaptive(model);
  q = q0;
  v = v0;
  double worst_drift = 0.0, fastest = 0.0, shortest = 1e-3;
  long substeps = 0;
  for (int k = 1; k <= 1000; ++k) {
    adaptive.step(model, data, q, v, tau, 1e-3);
    substeps += adaptive.lastAccepted();
    shortest = std::min(shortest, adaptive.lastSmallestStep());
    BOOST_REQUIRE(q.allFinite() && v.allFinite());
    worst_drift = std::max(worst_drift, std::abs(mechanicalEnergy(model, data, q, v) - E0));
    fastest = std::max(fastest, v.cwiseAbs().maxCoeff());
    if (k == 300) {
      BOOST_TEST_MESSAGE("t = 0.3 s against RK4 at 1e-5 s: |dq| " << (q - q_ref).cwiseAbs().maxCoeff() << ", |dv| "
                                                                  << (v - v_ref).cwiseAbs().maxCoeff());
      BOOST_TEST((q - q_ref).cwiseAbs().maxCoeff() < 1e-4);
      BOOST_TEST((v - v_ref).cwiseAbs().maxCoeff() < 1e-4 * (1.0 + v_ref.cwiseAbs().maxCoeff()));
    }
  }
  BOOST_TEST_MESSAGE("error-controlled RK4: " << substeps << " sub-steps, the shortest " << shortest
                                              << " s, fastest joint " << fastest << " rad/s, worst energy drift "
                                              << worst_drift << " J");
  BOOST_TEST(fastest > 300.0);  // the whip happened
  BOOST_TEST(substeps > 1000);  // and the controller shortened steps for it
  BOOST_TEST(worst_drift < 1e-6 * scale);
}

// Where one sub-step meets the tolerance (the pendulum at 1 ms), a step is exactly two RK4 half steps,
// and the proposal grows no further than the caller's step.
BOOST_AUTO_TEST_CASE(adaptive_rk4_on_a_smooth_model) {
  const Model model = pendulum();
  Data data(model);
  const Eigen::VectorXd tau = Eigen::VectorXd::Zero(1);
  Eigen::VectorXd q(1), v(1);
  q << 1.0;
  v << 0.0;
  Eigen::VectorXd q_halves = q, v_halves = v;
  AdaptiveRungeKutta4 adaptive(model);
  RungeKutta4 rk(model);
  for (int k = 0; k < 100; ++k) {
    adaptive.step(model, data, q, v, tau, 1e-3);
    BOOST_TEST(adaptive.lastAccepted() == 1);
    BOOST_TEST(adaptive.lastRejected() == 0);
    for (int half = 0; half < 2; ++half) rk.step(model, data, q_halves, v_halves, tau, 0.5e-3);
  }
  BOOST_TEST((q - q_halves).norm() == 0.0);
  BOOST_TEST((v - v_halves).norm() == 0.0);
}

// A stiff joint damper (decay rate d / I = 1e9 / s on the pendulum; RK4 is stable below h d / I = 2.785)
// makes the error-controlled step creep at sub-steps near 3e-9 s, above the smallest fraction of a 1 ms step: the sub-step budget stops it
// with an error that says why and names the implicit step, within the budget's work. A smaller budget
// stops it sooner; a generous one on a smooth model changes nothing.
BOOST_AUTO_TEST_CASE(adaptive_rk4_stops_at_its_substep_budget_on_a_stiff_model) {
  const Model model = pendulum(1e9);
  Data data(model);
  const Eigen::VectorXd tau = Eigen::VectorXd::Zero(1);
  for (const int budget : {10000, 100}) {
    AdaptiveRungeKutta4Settings settings;
    settings.max_substeps = budget;
    AdaptiveRungeKutta4 adaptive(model, settings);
    Eigen::VectorXd q = Eigen::VectorXd::Constant(1, 1.0), v = Eigen::VectorXd::Constant(1, 1.0);
    try {
      adaptive.step(model, data, q, v, tau, 1e-3);
      BOOST_ERROR("the stiff step did not stop at its budget of " << budget);
    } catch (const Error& e) {
      const std::string what = e.what();
      BOOST_TEST(what.find("abdyn::AdaptiveRungeKutta4::step: " + std::to_string(budget) + " sub-steps (max_substeps)") == 0,
                 what);
      BOOST_TEST(what.find("ImplicitDampingEuler") != std::string::npos, what);
    }
    BOOST_TEST(adaptive.lastAccepted() + adaptive.lastRejected() == budget);
    BOOST_TEST(q.allFinite());
    BOOST_TEST(v.allFinite());
  }
}

// Settings that are not positive and finite are refused by name; a tolerance no sub-step can meet
// above the smallest fraction throws abdyn::Error naming the step.
BOOST_AUTO_TEST_CASE(adaptive_rk4_bad_settings_throw) {
  // The exception's message holds every part.
  const auto says = [](std::vector<std::string> parts) {
    return [parts](const std::exception& e) {
      const std::string what = e.what();
      for (const std::string& part : parts) {
        if (what.find(part) == std::string::npos) {
          BOOST_TEST_MESSAGE("'" << what << "' lacks '" << part << "'");
          return false;
        }
      }
      return true;
    };
  };
  const Model model = pendulum();
  Data data(model);
  AdaptiveRungeKutta4Settings zero;
  zero.relative_tolerance = 0.0;
  BOOST_CHECK_EXCEPTION(AdaptiveRungeKutta4(model, zero), InvalidArgument, says({"relative_tolerance", "positive"}));
  AdaptiveRungeKutta4Settings nan;
  nan.min_step_fraction = std::nan("");
  BOOST_CHECK_EXCEPTION(AdaptiveRungeKutta4(model, nan), InvalidArgument, says({"min_step_fraction"}));
  AdaptiveRungeKutta4Settings no_budget;
  no_budget.max_substeps = 0;
  BOOST_CHECK_EXCEPTION(AdaptiveRungeKutta4(model, no_budget), InvalidArgument, says({"max_substeps", "at least 1"}));
  AdaptiveRungeKutta4Settings impossible;
  impossible.relative_tolerance = impossible.absolute_tolerance = 1e-300;
  impossible.min_step_fraction = 0.1;
  AdaptiveRungeKutta4 strict(model, impossible);
  Eigen::VectorXd q(1), v(1);
  q << 1.0;
  v << 0.0;
  const Eigen::VectorXd tau = Eigen::VectorXd::Zero(1);
  BOOST_CHECK_EXCEPTION(strict.step(model, data, q, v, tau, 1e-2), Error,
                        says({"abdyn::AdaptiveRungeKutta4::step", "sub-step fell below"}));
  AdaptiveRungeKutta4 adaptive(model);
  BOOST_CHECK_EXCEPTION(adaptive.step(model, data, q, v, tau, 0.0), InvalidArgument,
                        says({"abdyn::AdaptiveRungeKutta4::step", "'h'"}));
}
