#define BOOST_TEST_MODULE constrained_derivatives
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <functional>
#include <string>

#include "abdyn/algorithms/crba.hpp"
#include "abdyn/constraints/constrained_derivatives.hpp"
#include "abdyn/error.hpp"
#include "abdyn/io/urdf.hpp"
#include "abdyn/io/urdf_loops.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/model_builder.hpp"
#include "closed_loops.hpp"
#include "finite_differences.hpp"
#include "test_helpers.hpp"

using namespace abdyn;
using namespace abdyn::test;

// forwardDynamicsConstrainedDerivatives against centred finite differences of forwardDynamicsConstrained
// itself, on every closed model in models/, at closed configurations (projectPositions) with velocities
// projected onto G v = 0 and random joint forces, for each stabilisation and with and without cfm.
//
// Column k of d y / d q is the fourth-order centred difference (8 (y(h) - y(-h)) - (y(2h) - y(-2h))) / 12h
// with y(t) = y(integrate(q, t e_k)), h = 1e-3 (the tangent directions of derivatives.hpp; they leave the
// constraint manifold, where the stabilisation terms act, so those are tested too). Why fourth order: the
// delta robot's constrained solve rounds at about eps cond ~ 1e-11 relative, which a second-order difference
// divides by h: the best second-order step (1e-4) leaves 1e-7 on the delta robot and, by truncation, 4e-7 on
// the welded humanoid. The fourth-order one has truncation h^4 |y^(5)| / 30 and rounding about 1e-8 at
// h = 1e-3: measured worst 1.4e-8 (delta robot), 5e-9 (humanoid), 1e-10 (the planar loops).
// qdd and lambda are quadratic in v and linear in tau, so there a second-order difference with step 1e-2 is
// exact up to rounding. Agreement: the Frobenius norm of the difference relative to that of the difference
// quotient, <= 1e-6 (of the whole matrix: an error in a term or a sign shows at the scale of the entries).
namespace {

constexpr double kStep = 1e-3;
constexpr double kTol = 1e-6;

Eigen::MatrixXd fdTangent(const Model& model, const Eigen::VectorXd& q, const VectorFunction& y) {
  Eigen::MatrixXd J(y(q).size(), model.nv());
  Eigen::VectorXd e = Eigen::VectorXd::Zero(model.nv());
  const auto at = [&](double t) { return y(integrate(model, q, t * e, 1.0)); };
  for (int k = 0; k < model.nv(); ++k) {
    e[k] = 1.0;
    J.col(k) = (8.0 * (at(kStep) - at(-kStep)) - (at(2.0 * kStep) - at(-2.0 * kStep))) / (12.0 * kStep);
    e[k] = 0.0;
  }
  return J;
}

// The settings tested: no stabilisation, Baumgarte, error reduction and predicted error (with the integrator
// step they need), the last with cfm.
std::vector<std::pair<std::string, ConstrainedDynamicsSettings>> settingsCases() {
  std::vector<std::pair<std::string, ConstrainedDynamicsSettings>> cases;
  ConstrainedDynamicsSettings s;
  cases.emplace_back("none", s);
  s.baumgarte_alpha = 5.0;
  s.baumgarte_beta = 7.0;
  cases.emplace_back("baumgarte", s);
  s = ConstrainedDynamicsSettings{};
  s.stabilisation = Stabilisation::ErrorReduction;
  s.erp = 0.3;
  s.time_step = 1e-2;
  cases.emplace_back("error reduction", s);
  s.stabilisation = Stabilisation::PredictedError;
  s.cfm = 1e-3;
  cases.emplace_back("predicted error, cfm", s);
  return cases;
}

}  // namespace

BOOST_AUTO_TEST_CASE(constrained_derivatives_match_finite_differences_on_bundled_models) {
  std::mt19937 rng(1919);
  for (const char* file : kClosedFiles) {
    ClosedFile cf(file);
    const Model& model = cf.model;
    Data data(model), fd_data(model);
    ConstrainedDynamicsData cd(model, cf.loops), fd_cd(model, cf.loops);
    ConstrainedDerivatives out(model, cf.loops);
    Eigen::VectorXd q(model.nq());
    projectPositions(model, data, cd, cf.loops, cf.q0, 1e-12, 50);
    double worst = 0.0;
    int rank = cf.loops.rows();  // the smallest over the settings: below rows() the redundant branch ran
    for (const auto& [label, settings] : settingsCases()) {
      integrate(model, cf.q0, randomVector(model.nv(), rng, 0.05), 1.0, q);
      projectPositions(model, data, cd, cf.loops, q, 1e-12, 50);
      Eigen::VectorXd v = randomVector(model.nv(), rng);
      projectVelocities(model, data, cd, cf.loops, q, v);
      const Eigen::VectorXd tau = randomVector(model.nv(), rng);
      forwardDynamicsConstrainedDerivatives(model, data, cd, out, cf.loops, q, v, tau, settings);
      rank = std::min(rank, cd.rank);
      const auto qdd = [&](const Eigen::VectorXd& qq, const Eigen::VectorXd& vv, const Eigen::VectorXd& tt) {
        return Eigen::VectorXd(forwardDynamicsConstrained(model, fd_data, fd_cd, cf.loops, qq, vv, tt, settings));
      };
      const auto lambda = [&](const Eigen::VectorXd& qq, const Eigen::VectorXd& vv, const Eigen::VectorXd& tt) {
        forwardDynamicsConstrained(model, fd_data, fd_cd, cf.loops, qq, vv, tt, settings);
        return Eigen::VectorXd(fd_cd.lambda);
      };
      // The call leaves the forward results in cd.
      ABDYN_CHECK_REL(cd.qdd, qdd(q, v, tau), 1e-12);
      const auto check = [&](const Eigen::MatrixXd& analytic, const Eigen::MatrixXd& numeric, const char* what) {
        const double err = relErr(analytic, numeric);
        worst = std::max(worst, err);
        BOOST_TEST(err <= kTol, file << " (" << label << ") " << what << ": relative error " << err);
      };
      check(out.dqdd_dq, fdTangent(model, q, [&](const Eigen::VectorXd& x) { return qdd(x, v, tau); }), "dqdd/dq");
      check(out.dqdd_dv, fdVector(v, [&](const Eigen::VectorXd& x) { return qdd(q, x, tau); }, kStepQuadratic), "dqdd/dv");
      check(out.dqdd_dtau, fdVector(tau, [&](const Eigen::VectorXd& x) { return qdd(q, v, x); }, kStepQuadratic),
            "dqdd/dtau");
      check(out.dlambda_dq, fdTangent(model, q, [&](const Eigen::VectorXd& x) { return lambda(x, v, tau); }),
            "dlambda/dq");
      check(out.dlambda_dv, fdVector(v, [&](const Eigen::VectorXd& x) { return lambda(q, x, tau); }, kStepQuadratic),
            "dlambda/dv");
      check(out.dlambda_dtau, fdVector(tau, [&](const Eigen::VectorXd& x) { return lambda(q, v, x); }, kStepQuadratic),
            "dlambda/dtau");
    }
    BOOST_TEST_MESSAGE(file << ": nv " << model.nv() << ", " << cf.loops.rows() << " rows, rank " << rank
                            << "; worst relative error " << worst);
  }
}

// Redundant closures whose redundant combination turns with q, where the minimum-norm multipliers' derivative
// needs its null-space term (docs/derivatives.md, section 6). A slider b on three prismatic joints (x, y, z)
// is pinned at the origin twice: by a spherical closure to the world (rows: b's velocity in world axes) and
// by one to a turntable a spinning freely about z through the origin (rows: the same in a's axes, R_a^T times
// the first where the pins hold). The forward call splits the load between the two pins by minimum norm, so
// each pin's multipliers turn with the turntable's angle although nothing else depends on it. Along that
// angle and its rate the configuration stays closed and the velocity consistent (rank 3 of 6 throughout);
// the other directions leave the manifold, where the rank jumps to 4 and the minimum-norm multipliers are
// not differentiable, so only those two columns are differenced.
BOOST_AUTO_TEST_CASE(redundant_closures_that_turn_with_q) {
  ModelBuilder builder("pinned_slider");
  JointSpec joint;
  joint.name = "turntable";
  const int table = builder.addBody(0, joint, Plx(), RigidBodyInertia(2.0, Vector3(0.3, 0, 0), Matrix3::Identity() * 0.1), "table");
  joint.type = JointType::Prismatic;
  int body = 0;
  for (int axis = 0; axis < 3; ++axis) {
    joint.name = std::string("slide_") + "xyz"[axis];
    joint.axis = Vector3::Unit(axis);
    body = builder.addBody(body, joint, Plx(), RigidBodyInertia(1.0 + axis, Vector3::Zero(), Matrix3::Identity() * 0.01),
                           joint.name);
  }
  const Model model = builder.build();
  ConstraintSet pins;
  pins.loops.push_back(LoopClosure::spherical("world_pin", 0, Plx(), body, Plx()));
  pins.loops.push_back(LoopClosure::spherical("table_pin", table, Plx(), body, Plx()));
  Data data(model), fd_data(model);
  ConstrainedDynamicsData cd(model, pins), fd_cd(model, pins);
  ConstrainedDerivatives out(model, pins);
  Eigen::VectorXd q = Eigen::VectorXd::Zero(model.nq()), v = Eigen::VectorXd::Zero(model.nv());
  q[0] = 0.4;
  v[0] = 1.3;
  const Eigen::VectorXd tau = (Eigen::VectorXd(4) << 0.2, -5.0, 7.0, 1.1).finished();
  ConstrainedDynamicsSettings settings;
  settings.baumgarte_alpha = 3.0;
  forwardDynamicsConstrainedDerivatives(model, data, cd, out, pins, q, v, tau, settings);
  BOOST_TEST(cd.rank == 3);
  const auto both = [&](const Eigen::VectorXd& qq, const Eigen::VectorXd& vv) {
    forwardDynamicsConstrained(model, fd_data, fd_cd, pins, qq, vv, tau, settings);
    Eigen::VectorXd y(model.nv() + 6);
    y << fd_cd.qdd, fd_cd.lambda;
    return y;
  };
  const Eigen::VectorXd e0 = Eigen::VectorXd::Unit(model.nv(), 0);
  const auto alongAngle = [&](double t) { return both(integrate(model, q, (t * e0).eval(), 1.0), v); };
  const auto alongRate = [&](double t) { return both(q, v + t * e0); };
  const auto fourthOrder = [](const std::function<Eigen::VectorXd(double)>& f, double h) {
    return Eigen::VectorXd((8.0 * (f(h) - f(-h)) - (f(2.0 * h) - f(-2.0 * h))) / (12.0 * h));
  };
  const Eigen::VectorXd d_angle = fourthOrder(alongAngle, kStep), d_rate = fourthOrder(alongRate, kStep);
  BOOST_TEST(d_angle.tail(6).norm() > 1.0);  // the multipliers do turn with the angle
  ABDYN_CHECK_REL(out.dlambda_dq.col(0), d_angle.tail(6), kTol);
  ABDYN_CHECK_NEAR(out.dqdd_dq.col(0), d_angle.head(model.nv()), kTol);
  ABDYN_CHECK_REL(out.dlambda_dv.col(0), d_rate.tail(6), kTol);
  ABDYN_CHECK_NEAR(out.dqdd_dv.col(0), d_rate.head(model.nv()), kTol);
}

// Structure the KKT system implies whatever the state: G dqdd/dtau = -cfm dlambda/dtau (the constraint's
// acceleration does not respond to tau when cfm = 0), and M dqdd/dtau - G^T dlambda/dtau = 1.
BOOST_AUTO_TEST_CASE(tau_derivative_satisfies_the_kkt_rows) {
  ClosedFile cf("five_bar.urdf");
  const Model& model = cf.model;
  Data data(model);
  ConstrainedDynamicsData cd(model, cf.loops);
  ConstrainedDerivatives out(model, cf.loops);
  std::mt19937 rng(7);
  Eigen::VectorXd q = cf.q0;
  projectPositions(model, data, cd, cf.loops, q, 1e-12, 50);
  const Eigen::VectorXd v = randomVector(model.nv(), rng), tau = randomVector(model.nv(), rng);
  forwardDynamicsConstrainedDerivatives(model, data, cd, out, cf.loops, q, v, tau);
  const Eigen::MatrixXd& G = cd.kinematics.G;
  ABDYN_CHECK_NEAR((G * out.dqdd_dtau).eval(), Eigen::MatrixXd::Zero(G.rows(), model.nv()), 1e-10);
  const Eigen::MatrixXd M = massMatrix(model, data, q);
  ABDYN_CHECK_NEAR((M * out.dqdd_dtau - G.transpose() * out.dlambda_dtau).eval(),
                   Eigen::MatrixXd::Identity(model.nv(), model.nv()), 1e-10);
}

BOOST_AUTO_TEST_CASE(bad_arguments_are_named) {
  ClosedFile cf("four_bar.urdf"), other("five_bar.urdf");
  const Model& model = cf.model;
  Data data(model);
  ConstrainedDynamicsData cd(model, cf.loops);
  ConstrainedDerivatives out(model, cf.loops), wrong(other.model, other.loops);
  const Eigen::VectorXd q = cf.q0, v = Eigen::VectorXd::Zero(model.nv());
  const auto throwsNaming = [](const std::function<void()>& f, const std::string& what) {
    try {
      f();
    } catch (const InvalidArgument& e) {
      BOOST_TEST(std::string(e.what()).find(what) != std::string::npos, e.what() << " should name " << what);
      return;
    }
    BOOST_ERROR("no abdyn::InvalidArgument naming " << what);
  };
  throwsNaming([&] { forwardDynamicsConstrainedDerivatives(model, data, cd, out, cf.loops, q, v, Eigen::VectorXd::Zero(2)); },
               "'tau'");
  throwsNaming([&] { forwardDynamicsConstrainedDerivatives(model, data, cd, out, cf.loops, q, Eigen::VectorXd::Zero(1), v); },
               "'v'");
  throwsNaming([&] { forwardDynamicsConstrainedDerivatives(model, data, cd, wrong, cf.loops, q, v, v); }, "'out'");
  ConstrainedDynamicsSettings bad;
  bad.stabilisation = Stabilisation::PredictedError;  // without a time step
  throwsNaming([&] { forwardDynamicsConstrainedDerivatives(model, data, cd, out, cf.loops, q, v, v, bad); },
               "forwardDynamicsConstrainedDerivatives: settings.time_step");
}
