// Loop closures (loop_closure.cpp) and the constrained solvers on closed models: the closure Jacobian and
// bias, the direct, articulated and factorized solvers against reduced coordinates and each other,
// stabilisation, impacts and projections, and bad constraints.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "abdyn/abdyn.hpp"
#include "abdyn/constraints/constrained_dynamics.hpp"
#include "closed_loops.hpp"
#include "test_helpers.hpp"

using namespace abdyn;
using namespace abdyn::test;

namespace {

struct RandomClosedModel {
  Model model;
  ConstraintSet constraints;
  Eigen::VectorXd q0;

  explicit RandomClosedModel(std::mt19937& rng) {
    model = randomTree({10, false, false, true, true}, rng);
    q0 = randomConfiguration(model, rng);
    Data data(model);
    forwardKinematics(model, data, q0);
    const auto pose = [&](int body) { return body == 0 ? Plx() : data.X_body_world[body]; };
    std::uniform_int_distribution<int> pick(1, model.nbodies() - 1);
    for (int k = 0; k < 2; ++k) {
      int A = pick(rng), B = pick(rng);
      while (B == A) B = pick(rng);
      if (k == 1) B = 0;  // one closure to the world
      // A frame anywhere on A; the same world frame seen from B.
      const Plx X_F_A(expSO3(randomVector3(rng)).transpose(), randomVector3(rng, 0.3));
      const Plx X_F_0 = X_F_A * pose(A);
      const Plx X_F_B = X_F_0 * pose(B).inverse();
      constraints.loops.push_back(k == 0 ? LoopClosure::fixed("weld", A, X_F_A, B, X_F_B)
                                         : LoopClosure::spherical("ball", A, X_F_A, B, X_F_B));
    }
  }
};


}  // namespace

// dC/dt = G_exact v and d/dt (G v) = -gamma along q(t) = q (+) t v (constant velocity coordinates, so
// qdd = 0), by central differences; the angular rows of G are the relative angular velocity,
// Jl(phi) times those of G_exact.
BOOST_AUTO_TEST_CASE(jacobian_and_bias_match_finite_differences) {
  std::mt19937 rng(21);
  for (int trial = 0; trial < 5; ++trial) {
    RandomClosedModel rc(rng);
    const Model& model = rc.model;
    Data data(model);
    ConstraintKinematics ck(model, rc.constraints), ck2(model, rc.constraints);
    const Eigen::VectorXd q = randomConfiguration(model, rng), v = Eigen::VectorXd::Random(model.nv());
    constraintKinematics(model, data, rc.constraints, ck, q, v);
    const double h = 1e-6;
    Eigen::VectorXd qp(model.nq()), qm(model.nq());
    integrate(model, q, v, h, qp);
    integrate(model, q, v, -h, qm);
    constraintJacobian(model, data, rc.constraints, ck2, qp);
    const Eigen::VectorXd Cp = ck2.C, Gvp = ck2.G * v;
    constraintJacobian(model, data, rc.constraints, ck2, qm);
    const Eigen::VectorXd dC = (Cp - ck2.C) / (2 * h), dGv = (Gvp - ck2.G * v) / (2 * h);
    ABDYN_CHECK_NEAR(dC, (ck.G_exact * v).eval(), 1e-7);
    ABDYN_CHECK_NEAR(dGv, (-ck.gamma).eval(), 1e-6);
    const Vector3 phi = ck.C.head<3>();  // the weld's angular error
    ABDYN_CHECK_NEAR(ck.G.topRows(3), (rightJacobianSO3(-phi) * ck.G_exact.topRows(3)).eval(), 1e-12);
  }
}

// The four-bar against its reduced-coordinate equation of motion, derived above from the tree's M and h
// and the closure's null space: both solvers to 1e-9 relative. The closure is planar, so three of the
// revolute closure's five rows are redundant: rank 2.
BOOST_AUTO_TEST_CASE(four_bar_matches_reduced_coordinates) {
  FourBar fb;
  Data data(fb.model);
  ConstrainedDynamicsData cd(fb.model, fb.constraints);
  std::mt19937 rng(22);
  std::uniform_real_distribution<double> angle(-3.0, 3.0), rate(-2.0, 2.0);
  for (int s = 0; s < 20; ++s) {
    const Eigen::VectorXd q = fb.close(angle(rng));
    Eigen::VectorXd v;
    const Eigen::VectorXd tau = Eigen::VectorXd::Random(3);
    const Eigen::VectorXd expected = fb.reducedAcceleration(data, q, rate(rng), tau, v);
    for (const ConstrainedSolver solver :
         {ConstrainedSolver::Direct, ConstrainedSolver::Articulated, ConstrainedSolver::Factorized}) {
      ConstrainedDynamicsSettings settings;
      settings.solver = solver;
      const Eigen::VectorXd qdd = forwardDynamicsConstrained(fb.model, data, cd, fb.constraints, q, v, tau, settings);
      ABDYN_CHECK_REL(qdd, expected, 1e-9);
      BOOST_TEST(cd.rank == 2);
      BOOST_TEST(maxAbs(cd.kinematics.C) < 1e-12);
    }
  }
}

// The direct (KKT) and articulated solvers agree on random closed trees at consistent states (assembled
// by Gauss-Newton from a perturbed guess, velocities projected), and the accelerations satisfy
// G qdd = gamma.
BOOST_AUTO_TEST_CASE(direct_and_articulated_solvers_agree) {
  std::mt19937 rng(23);
  double worst = 0.0;
  for (int trial = 0; trial < 10; ++trial) {
    RandomClosedModel rc(rng);
    const Model& model = rc.model;
    Data data(model);
    ConstrainedDynamicsData cd(model, rc.constraints);
    Eigen::VectorXd q(model.nq());
    integrate(model, rc.q0, (0.01 * Eigen::VectorXd::Random(model.nv())).eval(), 1.0, q);
    const int iterations = projectPositions(model, data, cd, rc.constraints, q);
    BOOST_TEST(iterations <= 10);
    Eigen::VectorXd v = Eigen::VectorXd::Random(model.nv());
    projectVelocities(model, data, cd, rc.constraints, q, v);
    constraintKinematics(model, data, rc.constraints, cd.kinematics, q, v);
    BOOST_TEST(maxAbs(cd.kinematics.G * v) < 1e-12);
    const Eigen::VectorXd tau = Eigen::VectorXd::Random(model.nv());
    ConstrainedDynamicsSettings settings;
    settings.solver = ConstrainedSolver::Direct;
    const Eigen::VectorXd direct = forwardDynamicsConstrained(model, data, cd, rc.constraints, q, v, tau, settings);
    const Eigen::VectorXd lambda_direct = cd.lambda;
    settings.solver = ConstrainedSolver::Factorized;
    const Eigen::VectorXd factorized = forwardDynamicsConstrained(model, data, cd, rc.constraints, q, v, tau, settings);
    ABDYN_CHECK_REL(factorized, direct, 1e-9);
    ABDYN_CHECK_REL(cd.lambda, lambda_direct, 1e-8);
    settings.solver = ConstrainedSolver::Articulated;
    const Eigen::VectorXd articulated = forwardDynamicsConstrained(model, data, cd, rc.constraints, q, v, tau, settings);
    ABDYN_CHECK_REL(articulated, direct, 1e-9);
    ABDYN_CHECK_REL(cd.lambda, lambda_direct, 1e-8);
    ABDYN_CHECK_NEAR((cd.kinematics.G * articulated).eval(), cd.kinematics.gamma, 1e-9);
    // The multipliers are the constraint force: M qdd + h = tau + G^T lambda (RNEA, independent of both).
    ABDYN_CHECK_NEAR(inverseDynamics(model, data, q, v, articulated), (tau + cd.kinematics.G.transpose() * cd.lambda).eval(), 1e-9);
    worst = std::max(worst, relErr(articulated, direct));
  }
  BOOST_TEST_MESSAGE("direct vs articulated constrained dynamics: worst relative difference " << worst);
}

// Automatic takes the factorized solver on a shallow tree and the articulated one on a long chain (the
// factor of a chain's mass matrix is dense): each result is bit for bit the chosen solver's.
BOOST_AUTO_TEST_CASE(automatic_solver_follows_the_shape_of_the_tree) {
  std::mt19937 rng(41);
  for (const bool chain : {false, true}) {
    RandomTreeOptions options;
    options.bodies = chain ? 100 : 12;
    options.chain = chain;
    const Model model = randomTree(options, rng);
    const Eigen::VectorXd q0 = randomConfiguration(model, rng);
    Data data(model);
    forwardKinematics(model, data, q0);
    ConstraintSet loops;
    int tip = 1;  // the deepest body, pinned where it is by a ball joint
    const auto depth = [&](int body) {
      int d = 0;
      for (; body > 0; body = model.parent(body)) ++d;
      return d;
    };
    for (int i = 1; i < model.nbodies(); ++i) {
      if (depth(i) > depth(tip)) tip = i;
    }
    loops.loops.push_back(LoopClosure::spherical("ball", tip, Plx(), 0, data.X_body_world[tip]));
    ConstrainedDynamicsData cd(model, loops);
    Eigen::VectorXd v = Eigen::VectorXd::Random(model.nv());
    projectVelocities(model, data, cd, loops, q0, v);
    const Eigen::VectorXd tau = Eigen::VectorXd::Random(model.nv());
    ConstrainedDynamicsSettings settings;
    const Eigen::VectorXd automatic = forwardDynamicsConstrained(model, data, cd, loops, q0, v, tau, settings);
    settings.solver = chain ? ConstrainedSolver::Articulated : ConstrainedSolver::Factorized;
    const Eigen::VectorXd chosen = forwardDynamicsConstrained(model, data, cd, loops, q0, v, tau, settings);
    BOOST_TEST((automatic.array() == chosen.array()).all(), (chain ? "chain" : "tree") << ": Automatic is not the chosen solver");
    settings.solver = ConstrainedSolver::Direct;
    ABDYN_CHECK_REL(automatic, forwardDynamicsConstrained(model, data, cd, loops, q0, v, tau, settings), 1e-9);
  }
}

// The same agreement (1e-9 relative in qdd, 1e-8 in lambda) on every closed model in models/, at random
// consistent states: q assembled from a random perturbation of the file's closed configuration, v
// projected onto G v = 0, random tau.
BOOST_AUTO_TEST_CASE(direct_and_articulated_solvers_agree_on_bundled_models) {
  std::mt19937 rng(31);
  for (const char* file : kClosedFiles) {
    ClosedFile cf(file);
    const Model& model = cf.model;
    Data data(model);
    ConstrainedDynamicsData cd(model, cf.loops);
    Eigen::VectorXd q(model.nq());
    projectPositions(model, data, cd, cf.loops, cf.q0, 1e-12, 50);
    double worst = 0.0;
    for (int trial = 0; trial < 5; ++trial) {
      integrate(model, cf.q0, randomVector(model.nv(), rng, 0.05), 1.0, q);
      projectPositions(model, data, cd, cf.loops, q, 1e-12, 50);
      Eigen::VectorXd v = randomVector(model.nv(), rng);
      projectVelocities(model, data, cd, cf.loops, q, v);
      const Eigen::VectorXd tau = randomVector(model.nv(), rng);
      ConstrainedDynamicsSettings settings;
      settings.solver = ConstrainedSolver::Direct;
      const Eigen::VectorXd direct = forwardDynamicsConstrained(model, data, cd, cf.loops, q, v, tau, settings);
      const Eigen::VectorXd lambda_direct = cd.lambda;
      const int rank_direct = cd.rank;
      settings.solver = ConstrainedSolver::Factorized;
      const Eigen::VectorXd factorized = forwardDynamicsConstrained(model, data, cd, cf.loops, q, v, tau, settings);
      ABDYN_CHECK_REL(factorized, direct, 1e-9);
      ABDYN_CHECK_REL(cd.lambda, lambda_direct, 1e-8);
      BOOST_TEST(cd.rank == rank_direct, file);
      settings.solver = ConstrainedSolver::Articulated;
      const Eigen::VectorXd articulated = forwardDynamicsConstrained(model, data, cd, cf.loops, q, v, tau, settings);
      ABDYN_CHECK_REL(articulated, direct, 1e-9);
      ABDYN_CHECK_REL(cd.lambda, lambda_direct, 1e-8);
      BOOST_TEST(cd.rank == rank_direct, file);
      ABDYN_CHECK_NEAR(inverseDynamics(model, data, q, v, articulated),
                       (tau + cd.kinematics.G.transpose() * cd.lambda).eval(), 1e-8);
      worst = std::max(worst, relErr(articulated, direct));
    }
    BOOST_TEST_MESSAGE(file << ": " << model.nv() << " velocities, " << cf.loops.rows() << " rows, rank " << cd.rank
                            << "; direct vs articulated worst relative difference " << worst);
  }
}


namespace {

// The unforced four-bar started closed at crank angle 0.7 rad with crank rate 1.5 rad/s, with its workspaces.
struct FourBarMotion : FourBar {
  Data data{model};
  ConstrainedDynamicsData cd{model, constraints};
  Eigen::VectorXd q = close(0.7), v;
  const Eigen::VectorXd tau = Eigen::VectorXd::Zero(3);

  FourBarMotion() { reducedAcceleration(data, q, 1.5, Eigen::VectorXd::Zero(3), v); }
};

// RK4 on the four-bar (revolute joints only, so q is Euclidean), optionally projecting after each step.
struct Run {
  double closure = 0.0, energy_drift = 0.0, power = 0.0;
};

Run simulateFourBar(const ConstrainedDynamicsSettings& settings, bool project, double duration) {
  FourBarMotion m;
  const auto f = [&](const Eigen::VectorXd& qq, const Eigen::VectorXd& vv) {
    return forwardDynamicsConstrained(m.model, m.data, m.cd, m.constraints, qq, vv, m.tau, settings);
  };
  const double E0 = kineticEnergy(m.model, m.data, m.q, m.v) + potentialEnergy(m.model, m.data, m.q);
  const double h = 1e-3;
  Run run;
  for (int k = 0; k < std::lround(duration / h); ++k) {
    const Eigen::VectorXd a1 = f(m.q, m.v);
    run.power = std::max(run.power, std::abs(m.cd.lambda.dot(m.cd.kinematics.G * m.v)));
    const Eigen::VectorXd q2 = m.q + 0.5 * h * m.v, v2 = m.v + 0.5 * h * a1;
    const Eigen::VectorXd a2 = f(q2, v2);
    const Eigen::VectorXd q3 = m.q + 0.5 * h * v2, v3 = m.v + 0.5 * h * a2;
    const Eigen::VectorXd a3 = f(q3, v3);
    const Eigen::VectorXd q4 = m.q + h * v3, v4 = m.v + h * a3;
    const Eigen::VectorXd a4 = f(q4, v4);
    m.q += h / 6 * (m.v + 2 * v2 + 2 * v3 + v4);
    m.v += h / 6 * (a1 + 2 * a2 + 2 * a3 + a4);
    if (project) {
      projectPositions(m.model, m.data, m.cd, m.constraints, m.q, 1e-12);
      projectVelocities(m.model, m.data, m.cd, m.constraints, m.q, m.v);
    }
    constraintJacobian(m.model, m.data, m.constraints, m.cd.kinematics, m.q);
    run.closure = std::max(run.closure, maxAbs(m.cd.kinematics.C));
  }
  const double E1 = kineticEnergy(m.model, m.data, m.q, m.v) + potentialEnergy(m.model, m.data, m.q);
  run.energy_drift = std::abs(E1 - E0) / std::abs(E0);
  return run;
}

}  // namespace

// 10 s at 1 kHz with RK4: post-stabilisation keeps the closure within 1e-9 and the energy within 1e-4;
// Baumgarte alone keeps the closure within 1e-4; the constraint forces do no work (lambda^T G v ~ 0).
BOOST_AUTO_TEST_CASE(four_bar_simulation_stays_closed) {
  ConstrainedDynamicsSettings plain;
  const Run projected = simulateFourBar(plain, true, 10.0);
  BOOST_TEST_MESSAGE("post-stabilised: closure " << projected.closure << ", energy drift " << projected.energy_drift
                                                 << ", max |lambda^T G v| " << projected.power);
  BOOST_TEST(projected.closure < 1e-9);
  BOOST_TEST(projected.energy_drift < 1e-4);
  BOOST_TEST(projected.power < 1e-8);

  ConstrainedDynamicsSettings baumgarte;
  baumgarte.baumgarte_alpha = 10.0;
  baumgarte.baumgarte_beta = 10.0;
  const Run stabilised = simulateFourBar(baumgarte, false, 10.0);
  BOOST_TEST_MESSAGE("Baumgarte: closure " << stabilised.closure << ", energy drift " << stabilised.energy_drift);
  BOOST_TEST(stabilised.closure < 1e-4);
}

namespace {

// Semi-implicit Euler on the four-bar at step h (v += h qdd, then q += h v): the largest closure error.
double fourBarDriftSemiImplicit(ConstrainedDynamicsSettings settings, double h, double duration) {
  FourBarMotion m;
  settings.time_step = h;
  double worst = 0.0;
  for (long k = 0; k < std::lround(duration / h); ++k) {
    m.v += h * forwardDynamicsConstrained(m.model, m.data, m.cd, m.constraints, m.q, m.v, m.tau, settings);
    m.q += h * m.v;
    constraintJacobian(m.model, m.data, m.constraints, m.cd.kinematics, m.q);
    worst = std::max(worst, maxAbs(m.cd.kinematics.C));
  }
  return worst;
}

}  // namespace

// At a coarse step for semi-implicit Euler (2 ms, 10 s), the closure drifts by about 0.1 without
// stabilisation. No feedback that sees C only at the start of a step can remove the step's own
// second-order error (h^2/2 v^T C'' v, about 1e-5 here), so only the feedback that removes the whole
// error every step stays within 1e-4: ERP = 1 (beta_erp = 1), Baumgarte with the same gains
// (2 alpha = 1/h, beta^2 = 1/h^2), and the predicted error; gentler settings (Baumgarte 10/s, ERP 0.9)
// reduce the drift tenfold or more. The figures are reported.
BOOST_AUTO_TEST_CASE(stabilisation_keeps_a_coarse_four_bar_closed) {
  const double h = 0.002, duration = 10.0;
  ConstrainedDynamicsSettings none, baumgarte, baumgarte_deadbeat, erp, erp_full, predicted;
  baumgarte.baumgarte_alpha = 10.0;
  baumgarte.baumgarte_beta = 10.0;
  baumgarte_deadbeat.baumgarte_alpha = 0.5 / h;
  baumgarte_deadbeat.baumgarte_beta = 1.0 / h;
  erp.stabilisation = erp_full.stabilisation = Stabilisation::ErrorReduction;
  erp.erp = 0.9;
  erp_full.erp = 1.0;
  predicted.stabilisation = Stabilisation::PredictedError;
  const double e_none = fourBarDriftSemiImplicit(none, h, duration);
  const double e_baumgarte = fourBarDriftSemiImplicit(baumgarte, h, duration);
  const double e_deadbeat = fourBarDriftSemiImplicit(baumgarte_deadbeat, h, duration);
  const double e_erp = fourBarDriftSemiImplicit(erp, h, duration);
  const double e_erp_full = fourBarDriftSemiImplicit(erp_full, h, duration);
  const double e_predicted = fourBarDriftSemiImplicit(predicted, h, duration);
  BOOST_TEST_MESSAGE("four-bar, semi-implicit Euler at 2 ms for 10 s, largest closure error: none "
                     << e_none << ", Baumgarte (10, 10) " << e_baumgarte << ", Baumgarte (1/2h, 1/h) " << e_deadbeat
                     << ", ERP 0.9 " << e_erp << ", ERP 1 " << e_erp_full << ", predicted error " << e_predicted);
  BOOST_TEST(e_deadbeat < 1e-4);
  BOOST_TEST(e_erp_full < 1e-4);
  BOOST_TEST(e_predicted < 1e-4);
  BOOST_TEST(e_none > 100.0 * std::max({e_deadbeat, e_erp_full, e_predicted}));
  BOOST_TEST(e_none > 10.0 * std::max(e_baumgarte, e_erp));
}

// The three stabilisations are one family: at the same state, ErrorReduction gives the accelerations of
// Baumgarte with 2 alpha = 1/h, beta^2 = beta_erp/h^2, and PredictedError those with beta^2 = 1/(2 h^2).
BOOST_AUTO_TEST_CASE(stabilisations_are_baumgarte_gains_tied_to_the_step) {
  FourBar fb;
  Data data(fb.model);
  ConstrainedDynamicsData cd(fb.model, fb.constraints);
  Eigen::VectorXd q = fb.close(0.4);
  q[2] += 1e-3;  // open, so that the position feedback matters
  const Eigen::VectorXd v = Eigen::Vector3d(0.3, -1.0, 0.5), tau = Eigen::Vector3d(0.1, 0.2, -0.3);
  const double h = 0.004;
  ConstrainedDynamicsSettings erp, predicted, baumgarte;
  erp.stabilisation = Stabilisation::ErrorReduction;
  erp.erp = 0.6;
  erp.time_step = predicted.time_step = h;
  predicted.stabilisation = Stabilisation::PredictedError;
  const Eigen::VectorXd qdd_erp = forwardDynamicsConstrained(fb.model, data, cd, fb.constraints, q, v, tau, erp);
  const Eigen::VectorXd qdd_predicted = forwardDynamicsConstrained(fb.model, data, cd, fb.constraints, q, v, tau, predicted);
  baumgarte.baumgarte_alpha = 0.5 / h;
  baumgarte.baumgarte_beta = std::sqrt(1.0 - std::pow(0.4, h)) / h;
  ABDYN_CHECK_REL(qdd_erp, forwardDynamicsConstrained(fb.model, data, cd, fb.constraints, q, v, tau, baumgarte), 1e-12);
  baumgarte.baumgarte_beta = std::sqrt(0.5) / h;
  ABDYN_CHECK_REL(qdd_predicted, forwardDynamicsConstrained(fb.model, data, cd, fb.constraints, q, v, tau, baumgarte), 1e-12);
}

// What ERP and the predicted error promise, checked on the four-bar opened by 1e-5 (rocker turned), at
// rest, with tau = g(q) so that only the constraint feedback moves it, stepped by semi-implicit Euler:
//   ErrorReduction  after n = 1/h steps (one second) C is (1 - ERP) C0 (the notes' definition), and
//                   one step multiplies it by 1 - beta_erp, beta_erp = 1 - (1 - ERP)^h;
//   PredictedError  after one step C + h G v is zero, and C has halved.
// The steps move q by about 1e-5, so the closure's curvature adds relative errors of about 1e-5.
BOOST_AUTO_TEST_CASE(error_reduction_and_predicted_error_follow_their_definitions) {
  FourBar fb;
  Data data(fb.model);
  ConstrainedDynamicsData cd(fb.model, fb.constraints);
  Eigen::VectorXd q0 = fb.close(0.7);
  q0[2] += 1e-5;
  const Eigen::VectorXd tau = gravityTorques(fb.model, data, q0);
  const double h = 0.01;
  constraintJacobian(fb.model, data, fb.constraints, cd.kinematics, q0);
  const Eigen::VectorXd C0 = cd.kinematics.C;
  BOOST_REQUIRE(maxAbs(C0) > 5e-6);
  const auto step = [&](const ConstrainedDynamicsSettings& settings, Eigen::VectorXd& q, Eigen::VectorXd& v) {
    v += h * forwardDynamicsConstrained(fb.model, data, cd, fb.constraints, q, v, tau, settings);
    q += h * v;
    constraintJacobian(fb.model, data, fb.constraints, cd.kinematics, q);
  };

  ConstrainedDynamicsSettings erp;
  erp.stabilisation = Stabilisation::ErrorReduction;
  erp.erp = 0.75;
  erp.time_step = h;
  Eigen::VectorXd q = q0, v = Eigen::VectorXd::Zero(3);
  step(erp, q, v);
  const double beta = 1.0 - std::pow(0.25, h);
  ABDYN_CHECK_NEAR(cd.kinematics.C, ((1.0 - beta) * C0).eval(), 1e-3 * maxAbs(C0));
  for (int k = 1; k < 100; ++k) step(erp, q, v);
  ABDYN_CHECK_NEAR(cd.kinematics.C, (0.25 * C0).eval(), 1e-3 * maxAbs(C0));

  ConstrainedDynamicsSettings predicted;
  predicted.stabilisation = Stabilisation::PredictedError;
  predicted.time_step = h;
  q = q0;
  v.setZero();
  step(predicted, q, v);
  const Eigen::VectorXd predicted_next = cd.kinematics.C + h * cd.kinematics.G * v;
  BOOST_TEST(maxAbs(predicted_next) < 1e-3 * maxAbs(C0), "C + h G v after one step: " << maxAbs(predicted_next));
  ABDYN_CHECK_NEAR(cd.kinematics.C, (0.5 * C0).eval(), 1e-3 * maxAbs(C0));
}

// Each bad setting throws abdyn::InvalidArgument naming it.
BOOST_AUTO_TEST_CASE(bad_stabilisation_settings_are_named) {
  FourBar fb;
  Data data(fb.model);
  ConstrainedDynamicsData cd(fb.model, fb.constraints);
  const Eigen::VectorXd q = fb.close(0.3), v = Eigen::VectorXd::Zero(3);
  const double nan = std::nan("");
  struct Case {
    std::function<void(ConstrainedDynamicsSettings&)> set;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](auto& s) { s.baumgarte_alpha = -1.0; }, "settings.baumgarte_alpha = -1 must be finite and non-negative"},
      {[&](auto& s) { s.baumgarte_beta = nan; }, "settings.baumgarte_beta = nan"},
      {[](auto& s) { s.cfm = -1e-3; }, "settings.cfm = -0.001"},
      {[](auto& s) { s.rank_tolerance = -1.0; }, "settings.rank_tolerance"},
      {[&](auto& s) { s.consistency_tolerance = nan; }, "settings.consistency_tolerance"},
      {[](auto& s) { s.erp = 1.5; }, "settings.erp = 1.5 must lie in [0, 1]"},
      {[](auto& s) { s.erp = -0.1; }, "settings.erp = -0.1 must lie in [0, 1]"},
      {[&](auto& s) { s.erp = nan; }, "settings.erp = nan"},
      {[](auto& s) { s.time_step = -0.01; }, "settings.time_step = -0.01"},
      {[](auto& s) { s.time_step = std::numeric_limits<double>::infinity(); }, "settings.time_step = inf"},
      {[](auto& s) { s.stabilisation = Stabilisation::ErrorReduction; }, "settings.time_step = 0 must be positive"},
      {[](auto& s) { s.stabilisation = Stabilisation::PredictedError; }, "settings.time_step = 0 must be positive"},
      // Checked at the constrained door for every solver (the articulated one's ABA pass checks nothing).
      {[](auto& s) { s.dynamics.implicit_damping_step = -1.0; }, "options 'implicit_damping_step' must be >= 0"},
  };
  for (const Case& c : cases) {
    ConstrainedDynamicsSettings settings;
    c.set(settings);
    const auto names = [&](const InvalidArgument& e) {
      const bool ok = std::string(e.what()).find(c.message) != std::string::npos;
      if (!ok) BOOST_TEST_MESSAGE("got: " << e.what() << "\nexpected: " << c.message);
      return ok;
    };
    BOOST_CHECK_EXCEPTION(forwardDynamicsConstrained(fb.model, data, cd, fb.constraints, q, v, v, settings),
                          InvalidArgument, names);
    BOOST_CHECK_EXCEPTION(constrainedImpact(fb.model, data, cd, fb.constraints, q, v, 0.0, settings), InvalidArgument,
                          names);
  }
  BOOST_CHECK_EXCEPTION(constrainedImpact(fb.model, data, cd, fb.constraints, q, v, 1.5), InvalidArgument,
                        [](const InvalidArgument& e) { return std::string(e.what()).find("restitution = 1.5") != std::string::npos; });
  BOOST_CHECK_EXCEPTION(constrainedImpact(fb.model, data, cd, fb.constraints, q, Eigen::VectorXd::Zero(2), 0.0),
                        InvalidArgument, [](const InvalidArgument& e) { return std::string(e.what()).find("'v_minus'") != std::string::npos; });
}

// Impacts on random closed trees and on every bundled closed model, from random (inadmissible)
// pre-impact velocities at assembled configurations:
//   e = 0  G v+ = 0, and v+ is the M-orthogonal projection of v- (projectVelocities, an independent
//          dense computation through CRBA);
//   e = 1  G v+ = -G v- and the kinetic energy is kept;
//   both solvers agree to 1e-12 relative.
BOOST_AUTO_TEST_CASE(impacts_project_or_reflect_the_constrained_velocity) {
  std::mt19937 rng(33);
  struct System {
    std::string name;
    Model model;
    ConstraintSet constraints;
    Eigen::VectorXd q0;
  };
  std::vector<System> systems;
  for (int k = 0; k < 3; ++k) {
    RandomClosedModel rc(rng);
    systems.push_back({"random tree " + std::to_string(k), rc.model, rc.constraints, rc.q0});
  }
  for (const char* file : kClosedFiles) {
    ClosedFile cf(file);
    systems.push_back({file, cf.model, cf.loops, cf.q0});
  }
  for (System& sys : systems) {
    const Model& model = sys.model;
    Data data(model);
    ConstrainedDynamicsData cd(model, sys.constraints);
    Eigen::VectorXd q = sys.q0;
    projectPositions(model, data, cd, sys.constraints, q, 1e-12, 50);
    double worst_agreement = 0.0, worst_energy = 0.0;
    for (int trial = 0; trial < 3; ++trial) {
      const Eigen::VectorXd v_minus = randomVector(model.nv(), rng);
      constraintJacobian(model, data, sys.constraints, cd.kinematics, q);
      const Eigen::MatrixXd G = cd.kinematics.G;
      const Eigen::VectorXd Gv_minus = G * v_minus;
      const double scale = v_minus.norm();
      for (const double e : {0.0, 1.0}) {
        ConstrainedDynamicsSettings settings;
        settings.solver = ConstrainedSolver::Direct;
        const Eigen::VectorXd direct = constrainedImpact(model, data, cd, sys.constraints, q, v_minus, e, settings);
        settings.solver = ConstrainedSolver::Factorized;
        ABDYN_CHECK_REL(constrainedImpact(model, data, cd, sys.constraints, q, v_minus, e, settings), direct, 1e-12);
        settings.solver = ConstrainedSolver::Articulated;
        const Eigen::VectorXd articulated = constrainedImpact(model, data, cd, sys.constraints, q, v_minus, e, settings);
        ABDYN_CHECK_REL(articulated, direct, 1e-12);
        worst_agreement = std::max(worst_agreement, relErr(articulated, direct));
        ABDYN_CHECK_NEAR((G * articulated).eval(), (-e * Gv_minus).eval(), 1e-11 * scale);
        if (e == 0.0) {
          Eigen::VectorXd projected = v_minus;
          projectVelocities(model, data, cd, sys.constraints, q, projected);
          ABDYN_CHECK_REL(articulated, projected, 1e-12);
        } else {
          // The kinetic energy of M (bodies and the joints' armature), from CRBA.
          const Eigen::MatrixXd M = massMatrix(model, data, q);
          const double T_minus = 0.5 * v_minus.dot(M * v_minus), T_plus = 0.5 * articulated.dot(M * articulated);
          BOOST_TEST(std::abs(T_plus - T_minus) <= 1e-12 * T_minus, sys.name << ": " << T_minus << " -> " << T_plus);
          worst_energy = std::max(worst_energy, std::abs(T_plus - T_minus) / T_minus);
        }
      }
    }
    BOOST_TEST_MESSAGE(sys.name << ": impacts, direct vs articulated worst " << worst_agreement
                                << ", e = 1 relative energy change worst " << worst_energy);
  }
}

// Bad constraint declarations and arguments get clear errors naming what is wrong.
BOOST_AUTO_TEST_CASE(bad_constraints_are_rejected) {
  FourBar fb;
  const auto says = [](std::string fragment) {
    return [fragment](const InvalidArgument& e) { return std::string(e.what()).find(fragment) != std::string::npos; };
  };
  ConstraintSet bad = fb.constraints;
  bad.loops[0].body_b = 7;
  BOOST_CHECK_EXCEPTION(bad.validate(fb.model), InvalidArgument, says("loop closure 'pin' names body 7"));
  bad = fb.constraints;
  bad.loops[0].body_b = bad.loops[0].body_a;
  BOOST_CHECK_EXCEPTION(bad.validate(fb.model), InvalidArgument, says("to itself"));
  bad = fb.constraints;
  bad.loops[0].p_a.x() = std::nan("");
  BOOST_CHECK_EXCEPTION(ConstrainedDynamicsData(fb.model, bad), InvalidArgument, says("non-finite"));
  bad = fb.constraints;
  bad.loops[0].R_b *= 2.0;
  BOOST_CHECK_EXCEPTION(bad.validate(fb.model), InvalidArgument, says("not a rotation"));
  bad = fb.constraints;
  bad.loops[0].directions(0, 3) = 0.5;
  BOOST_CHECK_EXCEPTION(bad.validate(fb.model), InvalidArgument, says("direction 0"));
  bad = fb.constraints;
  bad.loops[0].directions.resize(7, 6);
  bad.loops[0].directions << Eigen::Matrix<double, 6, 6>::Identity(), 1, 0, 0, 0, 0, 0;
  BOOST_CHECK_EXCEPTION(bad.validate(fb.model), InvalidArgument, says("has 7 directions"));
  bad.loops[0].directions.resize(0, 6);
  BOOST_CHECK_EXCEPTION(bad.validate(fb.model), InvalidArgument, says("has 0 directions"));
  BOOST_CHECK_EXCEPTION(LoopClosure::revolute("r", 1, Plx(), 2, Plx(), Vector3::Zero()), InvalidArgument, says("axis"));
  bad = fb.constraints;
  bad.couplings.push_back({"m", 1, 1, 1.0, 0.0});
  BOOST_CHECK_EXCEPTION(bad.validate(fb.model), InvalidArgument, says("coupling 'm'"));

  Data data(fb.model);
  ConstrainedDynamicsData cd(fb.model, fb.constraints);
  const Eigen::VectorXd q = fb.close(0.3), v = Eigen::VectorXd::Zero(3);
  BOOST_CHECK_EXCEPTION(forwardDynamicsConstrained(fb.model, data, cd, fb.constraints, q, v, Eigen::VectorXd::Zero(2)),
                        InvalidArgument, says("'tau'"));
  ConstrainedDynamicsSettings settings;
  settings.cfm = -1.0;
  BOOST_CHECK_EXCEPTION(forwardDynamicsConstrained(fb.model, data, cd, fb.constraints, q, v, v, settings),
                        InvalidArgument, says("non-negative"));
  ConstraintSet other = fb.constraints;
  other.loops.push_back(other.loops[0]);
  BOOST_CHECK_EXCEPTION(forwardDynamicsConstrained(fb.model, data, cd, other, q, v, v), InvalidArgument,
                        says("built for other constraints"));

  // Contradictory: the coupler's tip pinned both to the rocker's tip and 0.5 m away from it.
  ConstraintSet contradictory = fb.constraints;
  LoopClosure shifted = fb.constraints.loops[0];
  shifted.name = "shifted";
  shifted.p_b.x() += 0.5;
  contradictory.loops.push_back(shifted);
  ConstrainedDynamicsData cd2(fb.model, contradictory);
  ConstrainedDynamicsSettings baumgarte;
  baumgarte.baumgarte_beta = 10.0;
  BOOST_CHECK_THROW(forwardDynamicsConstrained(fb.model, data, cd2, contradictory, q, v, v, baumgarte), Error);
  // And no configuration closes both: assembly fails with a clear error.
  Eigen::VectorXd guess = q;
  BOOST_CHECK_THROW(projectPositions(fb.model, data, cd2, contradictory, guess, 1e-12, 20), Error);
}

// Statics of the humanoid standing on both feet welded to the ground (models/humanoid_welded.urdf, in its
// zero configuration, where the welds close): with the joint torques that hold the pose (from the
// equilibrium g(q) = [0; tau_joints] + G^T lambda, solved here for some lambda), the constrained solver
// keeps it at rest, and the feet's vertical reactions add up to the total weight (Newton's law for the
// whole body at rest), to 1e-9 relative.
BOOST_AUTO_TEST_CASE(humanoid_on_welded_feet_carries_its_weight) {
  const std::string path = std::string(ABDYN_SOURCE_DIR) + "/models/humanoid_welded.urdf";
  const Model model = loadUrdf(path);
  const ConstraintSet feet = loadUrdfLoops(path, model);
  BOOST_REQUIRE(feet.loops.size() == 2u);
  BOOST_REQUIRE(model.nv() == 36);
  Data data(model);
  const Eigen::VectorXd q = neutral(model);
  ConstrainedDynamicsData cd(model, feet);
  const Eigen::VectorXd v = Eigen::VectorXd::Zero(model.nv());
  constraintJacobian(model, data, feet, cd.kinematics, q);
  BOOST_TEST(maxAbs(cd.kinematics.C) < 1e-12);
  const Eigen::MatrixXd G = cd.kinematics.G;
  const Eigen::VectorXd g = gravityTorques(model, data, q);
  // The base's six equations fix lambda (least squares over the 12 multipliers); the joints take the rest.
  const Eigen::VectorXd lambda = G.leftCols(6).transpose().completeOrthogonalDecomposition().solve(g.head(6));
  Eigen::VectorXd tau = g - G.transpose() * lambda;
  BOOST_TEST(maxAbs(tau.head(6)) < 1e-9 * g.norm());
  tau.head(6).setZero();
  const double weight = model.totalMass() * 9.81;
  for (const ConstrainedSolver solver :
         {ConstrainedSolver::Direct, ConstrainedSolver::Articulated, ConstrainedSolver::Factorized}) {
    ConstrainedDynamicsSettings settings;
    settings.solver = solver;
    const Eigen::VectorXd qdd = forwardDynamicsConstrained(model, data, cd, feet, q, v, tau, settings);
    BOOST_TEST(maxAbs(qdd) < 1e-9);
    const double reaction = cd.closure_wrench[0][5] + cd.closure_wrench[1][5];
    BOOST_TEST(std::abs(reaction - weight) <= 1e-9 * weight, "vertical reaction " << reaction << " N, weight " << weight << " N");
    BOOST_TEST(std::abs(cd.closure_wrench[0][3] + cd.closure_wrench[1][3]) < 1e-9 * weight);
    BOOST_TEST(std::abs(cd.closure_wrench[0][4] + cd.closure_wrench[1][4]) < 1e-9 * weight);
  }
}
