#define BOOST_TEST_MODULE loops
#include <boost/test/unit_test.hpp>

#include <cmath>

#include "abdyn/abdyn.hpp"
#include "abdyn/constraints/constrained_dynamics.hpp"
#include "test_helpers.hpp"

using namespace abdyn;
using namespace abdyn::test;

namespace {

// Planar four-bar in the x-z plane, every joint about y: crank (a) from the origin, coupler (b) on the
// crank's tip, rocker (c) from the ground pivot (d, 0, 0); the coupler's tip is pinned to the rocker's
// tip by a revolute closure about y. Rotating body x by theta about y points it along
// u(theta) = (cos theta, 0, -sin theta).
struct FourBar {
  double a = 1.0, b = 2.0, c = 1.5, d = 2.0;
  Model model;
  ConstraintSet constraints;

  FourBar() {
    ModelBuilder builder("four_bar");
    JointSpec hinge;
    hinge.axis = Vector3::UnitY();
    const auto rod = [](double m, double L) {
      return RigidBodyInertia(m, Vector3(L / 2, 0, 0), Vector3(1e-3, m * L * L / 12, m * L * L / 12).asDiagonal());
    };
    hinge.name = "crank";
    const int crank = builder.addBody(0, hinge, Plx(), rod(1.0, a), "crank");
    hinge.name = "coupler";
    const int coupler = builder.addBody(crank, hinge, Plx::translation(Vector3(a, 0, 0)), rod(2.0, b), "coupler");
    hinge.name = "rocker";
    const int rocker = builder.addBody(0, hinge, Plx::translation(Vector3(d, 0, 0)), rod(1.5, c), "rocker");
    model = builder.build();
    constraints.loops.push_back(LoopClosure::revolute("pin", coupler, Plx::translation(Vector3(b, 0, 0)), rocker,
                                                      Plx::translation(Vector3(c, 0, 0)), Vector3::UnitY()));
  }

  static Eigen::Vector2d u(double t) { return {std::cos(t), -std::sin(t)}; }
  static Eigen::Vector2d du(double t) { return {-std::sin(t), -std::cos(t)}; }

  // The closed configuration for crank angle q1 (elbow-up branch), by intersecting two circles.
  Eigen::VectorXd close(double q1) const {
    const Eigen::Vector2d P = a * u(q1), D(d, 0.0);
    const double L = (D - P).norm();
    const double x = (b * b - c * c + L * L) / (2 * L), h = std::sqrt(b * b - x * x);
    const Eigen::Vector2d e = (D - P) / L, n(-e.y(), e.x());
    const Eigen::Vector2d E = P + x * e - h * n;
    const double t2 = std::atan2(-(E - P).y(), (E - P).x()), t3 = std::atan2(-(E - D).y(), (E - D).x());
    Eigen::VectorXd q(3);
    q << q1, t2 - q1, t3;
    return q;
  }

  // Reduced coordinates: the closure f(q) = a u(q1) + b u(q1 + q2) - c u(q3) - (d, 0) = 0 has Jacobian K
  // (2 x 3); v = n(q) q1dot spans its null space, and qdd = n s + p with K p = -Kdot v, p1 = 0.
  Eigen::VectorXd reducedAcceleration(Data& data, const Eigen::VectorXd& q, double q1dot, const Eigen::VectorXd& tau,
                                      Eigen::VectorXd& v) const {
    const double t1 = q[0], t2 = q[0] + q[1], t3 = q[2];
    Eigen::Matrix<double, 2, 3> K;
    K << a * du(t1) + b * du(t2), b * du(t2), -c * du(t3);
    const Eigen::Vector3d n(1.0, 0.0, 0.0);
    Eigen::Vector3d null = n;
    null.tail<2>() = K.rightCols<2>().partialPivLu().solve(-K.col(0));
    v = null * q1dot;
    const double w1 = v[0], w2 = v[0] + v[1], w3 = v[2];
    const Eigen::Vector2d Kdot_v = -(a * u(t1) * w1 * w1 + b * u(t2) * w2 * w2 - c * u(t3) * w3 * w3);
    Eigen::Vector3d p = Eigen::Vector3d::Zero();
    p.tail<2>() = K.rightCols<2>().partialPivLu().solve(-Kdot_v);
    const Eigen::MatrixXd M = massMatrix(model, data, q);
    const Eigen::VectorXd h = nonlinearEffects(model, data, q, v);
    const double s = null.dot(tau - h - M * p) / null.dot(M * null);
    return null * s + p;
  }
};

// A random tree (every joint type) with a fixed and a spherical closure between bodies of different
// branches, each built so that the random configuration q0 closes it.
struct RandomClosedModel {
  Model model;
  ConstraintSet constraints;
  Eigen::VectorXd q0;

  explicit RandomClosedModel(std::mt19937& rng) {
    model = randomTree({10, false, false, true, true}, rng);
    q0 = randomConfiguration(model, rng);
    Data data(model);
    forwardKinematics(model, data, q0);
    const auto pose = [&](int body) { return body == 0 ? Plx() : data.X_world[body]; };
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

double maxAbs(const Eigen::VectorXd& x) { return x.size() ? x.cwiseAbs().maxCoeff() : 0.0; }

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
    for (const ConstrainedSolver solver : {ConstrainedSolver::Direct, ConstrainedSolver::Articulated}) {
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

namespace {

// RK4 on the four-bar (revolute joints only, so q is Euclidean), optionally projecting after each step.
struct Run {
  double closure = 0.0, energy_drift = 0.0, power = 0.0;
};

Run simulateFourBar(const ConstrainedDynamicsSettings& settings, bool project, double duration) {
  FourBar fb;
  Data data(fb.model);
  ConstrainedDynamicsData cd(fb.model, fb.constraints);
  Eigen::VectorXd q = fb.close(0.7), v;
  fb.reducedAcceleration(data, q, 1.5, Eigen::VectorXd::Zero(3), v);
  const Eigen::VectorXd tau = Eigen::VectorXd::Zero(3);
  const auto f = [&](const Eigen::VectorXd& qq, const Eigen::VectorXd& vv) {
    return forwardDynamicsConstrained(fb.model, data, cd, fb.constraints, qq, vv, tau, settings);
  };
  const double E0 = kineticEnergy(fb.model, data, q, v) + potentialEnergy(fb.model, data, q);
  const double h = 1e-3;
  Run run;
  for (int k = 0; k < std::lround(duration / h); ++k) {
    const Eigen::VectorXd a1 = f(q, v);
    run.power = std::max(run.power, std::abs(cd.lambda.dot(cd.kinematics.G * v)));
    const Eigen::VectorXd q2 = q + 0.5 * h * v, v2 = v + 0.5 * h * a1;
    const Eigen::VectorXd a2 = f(q2, v2);
    const Eigen::VectorXd q3 = q + 0.5 * h * v2, v3 = v + 0.5 * h * a2;
    const Eigen::VectorXd a3 = f(q3, v3);
    const Eigen::VectorXd q4 = q + h * v3, v4 = v + h * a3;
    const Eigen::VectorXd a4 = f(q4, v4);
    q += h / 6 * (v + 2 * v2 + 2 * v3 + v4);
    v += h / 6 * (a1 + 2 * a2 + 2 * a3 + a4);
    if (project) {
      projectPositions(fb.model, data, cd, fb.constraints, q, 1e-12);
      projectVelocities(fb.model, data, cd, fb.constraints, q, v);
    }
    constraintJacobian(fb.model, data, fb.constraints, cd.kinematics, q);
    run.closure = std::max(run.closure, maxAbs(cd.kinematics.C));
  }
  const double E1 = kineticEnergy(fb.model, data, q, v) + potentialEnergy(fb.model, data, q);
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

// Statics of the humanoid standing on both feet welded to the ground: with the joint torques that hold
// the pose (from the equilibrium g(q) = [0; tau_joints] + G^T lambda, solved here for some lambda), the
// constrained solver keeps it at rest, and the feet's vertical reactions add up to the total weight
// (Newton's law for the whole body at rest), to 1e-9 relative.
BOOST_AUTO_TEST_CASE(humanoid_on_welded_feet_carries_its_weight) {
  UrdfOptions options;
  options.floating_base = true;
  const Model model = loadUrdf(std::string(ABDYN_SOURCE_DIR) + "/models/humanoid.urdf", options);
  Data data(model);
  Eigen::VectorXd q = neutral(model);
  q[2] = 1.0;  // lift the pelvis so the feet are well above the origin
  forwardKinematics(model, data, q);
  ConstraintSet feet;
  for (const char* foot : {"left_foot", "right_foot"}) {
    const int body = model.bodyId(foot);
    // Fa: the world frame at the foot's pose; Fb: the foot's own frame.
    feet.loops.push_back(LoopClosure::fixed(foot, 0, data.X_world[body], body, Plx()));
  }
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
  for (const ConstrainedSolver solver : {ConstrainedSolver::Direct, ConstrainedSolver::Articulated}) {
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

namespace {

std::string modelPath(const char* name) { return std::string(ABDYN_SOURCE_DIR) + "/models/" + name; }

// The slider-crank of models/slider_crank.urdf: crank r, rod l, slider along x. Its closure
// f(q) = r u(q1) + l u(q1 + q2) - (q3, 0) = 0, and the reduced-coordinate acceleration as for the four-bar.
struct SliderCrank {
  double r = 0.5, l = 1.5;

  Eigen::VectorXd close(double q1) const {
    const Eigen::Vector2d P = r * FourBar::u(q1);
    const double t2 = std::asin(P.y() / l);  // the rod's end on the x axis: P_z - l sin(t2) = 0
    Eigen::VectorXd q(3);
    q << q1, t2 - q1, P.x() + l * std::cos(t2);
    return q;
  }

  Eigen::VectorXd reducedAcceleration(const Model& model, Data& data, const Eigen::VectorXd& q, double q1dot,
                                      const Eigen::VectorXd& tau, Eigen::VectorXd& v) const {
    const double t1 = q[0], t2 = q[0] + q[1];
    Eigen::Matrix<double, 2, 3> K;
    K << r * FourBar::du(t1) + l * FourBar::du(t2), l * FourBar::du(t2), Eigen::Vector2d(-1.0, 0.0);
    Eigen::Vector3d null(1.0, 0.0, 0.0);
    null.tail<2>() = K.rightCols<2>().partialPivLu().solve(-K.col(0));
    v = null * q1dot;
    const double w1 = v[0], w2 = v[0] + v[1];
    const Eigen::Vector2d Kdot_v = -(r * FourBar::u(t1) * w1 * w1 + l * FourBar::u(t2) * w2 * w2);
    Eigen::Vector3d p = Eigen::Vector3d::Zero();
    p.tail<2>() = K.rightCols<2>().partialPivLu().solve(-Kdot_v);
    const Eigen::MatrixXd M = massMatrix(model, data, q);
    const Eigen::VectorXd h = nonlinearEffects(model, data, q, v);
    return null * (null.dot(tau - h - M * p) / null.dot(M * null)) + p;
  }
};

}  // namespace

// models/four_bar.urdf (a <loop_joint>) gives the same constrained dynamics as the four-bar built in C++,
// and models/slider_crank.urdf (a Drake ball constraint) matches its reduced-coordinate solution.
BOOST_AUTO_TEST_CASE(urdf_loop_joints_load_and_close) {
  std::mt19937 rng(24);
  std::uniform_real_distribution<double> angle(-3.0, 3.0), rate(-2.0, 2.0);
  {
    FourBar fb;
    const Model model = loadUrdf(modelPath("four_bar.urdf"));
    const ConstraintSet loops = loadUrdfLoops(modelPath("four_bar.urdf"), model);
    BOOST_REQUIRE(loops.loops.size() == 1u);
    BOOST_TEST(loops.loops[0].name == "pin");
    Data data(model), data2(fb.model);
    ConstrainedDynamicsData cd(model, loops), cd2(fb.model, fb.constraints);
    for (int s = 0; s < 10; ++s) {
      const Eigen::VectorXd q = fb.close(angle(rng));
      Eigen::VectorXd v;
      const Eigen::VectorXd tau = Eigen::VectorXd::Random(3);
      const Eigen::VectorXd expected = fb.reducedAcceleration(data2, q, rate(rng), tau, v);
      ABDYN_CHECK_REL(forwardDynamicsConstrained(model, data, cd, loops, q, v, tau), expected, 1e-9);
    }
  }
  {
    SliderCrank sc;
    const Model model = loadUrdf(modelPath("slider_crank.urdf"));
    const ConstraintSet loops = loadUrdfLoops(modelPath("slider_crank.urdf"), model);
    BOOST_REQUIRE(loops.loops.size() == 1u);
    BOOST_TEST(loops.loops[0].rows() == 3);
    Data data(model);
    ConstrainedDynamicsData cd(model, loops);
    for (int s = 0; s < 10; ++s) {
      const Eigen::VectorXd q = sc.close(angle(rng));
      Eigen::VectorXd v;
      const Eigen::VectorXd tau = Eigen::VectorXd::Random(3);
      const Eigen::VectorXd expected = sc.reducedAcceleration(model, data, q, rate(rng), tau, v);
      for (const ConstrainedSolver solver : {ConstrainedSolver::Direct, ConstrainedSolver::Articulated}) {
        ConstrainedDynamicsSettings settings;
        settings.solver = solver;
        ABDYN_CHECK_REL(forwardDynamicsConstrained(model, data, cd, loops, q, v, tau, settings), expected, 1e-9);
        BOOST_TEST(cd.rank == 2);
      }
    }
  }
}

// Bad loop declarations: each gets an abdyn::Error starting with the source and naming the loop joint.
BOOST_AUTO_TEST_CASE(bad_loop_declarations_are_named) {
  const Model model = loadUrdf(modelPath("four_bar.urdf"));
  const std::string head = "<robot name='four_bar'>";
  const auto loop = [&](const std::string& body) { return head + body + "</robot>"; };
  struct Case {
    std::string xml, message;
  };
  const std::vector<Case> cases = {
      {loop("<loop_joint name='p' type='revolute'><predecessor link='nowhere'/><successor link='rocker'/><axis xyz='0 1 0'/></loop_joint>"),
       "loop joint 'p': no link named 'nowhere'"},
      {loop("<loop_joint name='p' type='fixed'><predecessor link='rocker'/><successor link='rocker'/></loop_joint>"),
       "predecessor and successor are the same link 'rocker'"},
      {loop("<loop_joint name='p' type='fixed'><predecessor link='ground'/><successor link='world'/></loop_joint>"),
       "rigidly joined already"},
      {loop("<loop_joint name='p' type='hinge'><predecessor link='coupler'/><successor link='rocker'/></loop_joint>"),
       "type must be revolute, prismatic, spherical or fixed, got 'hinge'"},
      {loop("<loop_joint type='fixed'><predecessor link='coupler'/><successor link='rocker'/></loop_joint>"),
       "<loop_joint> needs a name"},
      {loop("<loop_joint name='p' type='fixed'><successor link='rocker'/></loop_joint>"), "missing <predecessor>"},
      {loop("<loop_joint name='p' type='fixed'><predecessor/><successor link='rocker'/></loop_joint>"),
       "<predecessor> needs the attribute 'link'"},
      {loop("<loop_joint name='p' type='fixed'><predecessor link='coupler' xyz='1 nan 0'/><successor link='rocker'/></loop_joint>"),
       "must be three finite numbers"},
      {loop("<loop_joint name='p' type='fixed'><predecessor link='coupler' rpy='1 2'/><successor link='rocker'/></loop_joint>"),
       "must be three finite numbers"},
      {loop("<loop_joint name='p' type='revolute'><predecessor link='coupler'/><successor link='rocker'/></loop_joint>"),
       "missing <axis>"},
      {loop("<loop_joint name='p' type='prismatic'><predecessor link='coupler'/><successor link='rocker'/><axis xyz='0 0 0'/></loop_joint>"),
       "<axis xyz> must not be zero"},
      {loop("<loop_joint name='p' type='spherical'><predecessor link='coupler'/><successor link='rocker'/></loop_joint>"
            "<loop_joint name='p' type='spherical'><predecessor link='crank'/><successor link='rocker'/></loop_joint>"),
       "a loop joint of that name already exists"},
      {loop("<drake:ball_constraint><drake:ball_constraint_body_A name='coupler'/><drake:ball_constraint_body_B name='rocker'/>"
            "<drake:ball_constraint_p_AP value='2 0 0'/></drake:ball_constraint>"),
       "missing <drake:ball_constraint_p_BQ>"},
      {"<robot name='x'><link", "malformed XML"},
  };
  for (const Case& c : cases) {
    BOOST_CHECK_EXCEPTION(loadUrdfLoopsString(c.xml, model), Error, [&](const Error& e) {
      const std::string what = e.what();
      const bool ok = what.rfind("<string>: ", 0) == 0 && what.find(c.message) != std::string::npos;
      if (!ok) BOOST_TEST_MESSAGE("got: " << what << "\nexpected: " << c.message);
      return ok;
    });
  }
  BOOST_CHECK_EXCEPTION(loadUrdfLoops(modelPath("no_such_file.urdf"), model), Error,
                        [](const Error& e) { return std::string(e.what()).find("no_such_file.urdf") != std::string::npos; });
}
