#define BOOST_TEST_MODULE constrained_step
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include "abdyn/constraints/loop_closure.hpp"
#include "abdyn/error.hpp"
#include "abdyn/integrators/constrained_implicit_damping_euler.hpp"
#include "abdyn/integrators/constrained_runge_kutta4.hpp"
#include "abdyn/integrators/constrained_step_derivatives.hpp"
#include "abdyn/io/urdf.hpp"
#include "abdyn/io/urdf_loops.hpp"
#include "abdyn/model/configuration.hpp"
#include "closed_loops.hpp"
#include "test_helpers.hpp"

using namespace abdyn;
using namespace abdyn::test;

// ConstrainedRungeKutta4 (the RK4 step of forwardDynamicsConstrained with post-stabilisation) and its step
// Jacobians, on the bundled closed models, each started from a closed state: q projected onto C(q) = 0 from a
// configuration near it (the four-bar and the slider-crank are open at zero) and a random velocity projected
// onto G v = 0.
namespace {

struct Closed : ClosedFile {
  Data data;
  ConstrainedDynamicsData cd;
  Eigen::VectorXd q, v, tau;

  Closed(const char* name, unsigned seed) : ClosedFile(name), data(model), cd(model, loops), q(q0) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    projectPositions(model, data, cd, loops, q, 1e-13, 100);
    v = Eigen::VectorXd::NullaryExpr(model.nv(), [&] { return u(rng); });
    projectVelocities(model, data, cd, loops, q, v);
    tau = Eigen::VectorXd::NullaryExpr(model.nv(), [&] { return 0.5 * u(rng); });
  }
};

// The loop step that app/main.cpp carried before this class existed, written out plainly: RK4 stages moved
// with integrate(q, v_s, c_s h) and the combined velocity, then projectPositions(1e-12, 100) and
// projectVelocities. On joints whose group is commutative (revolute, prismatic) this is the
// Runge-Kutta-Munthe-Kaas step of ConstrainedRungeKutta4, whose rate correction vanishes there.
void appStep(Closed& c, Eigen::VectorXd& q, Eigen::VectorXd& v, double h) {
  const auto accel = [&](const Eigen::VectorXd& qq, const Eigen::VectorXd& vv) -> Eigen::VectorXd {
    return forwardDynamicsConstrained(c.model, c.data, c.cd, c.loops, qq, vv, c.tau);
  };
  Eigen::VectorXd qs(q.size());
  const Eigen::VectorXd a1 = accel(q, v);
  const Eigen::VectorXd v2 = v + 0.5 * h * a1;
  integrate(c.model, q, v, 0.5 * h, qs);
  const Eigen::VectorXd a2 = accel(qs, v2);
  const Eigen::VectorXd v3 = v + 0.5 * h * a2;
  integrate(c.model, q, v2, 0.5 * h, qs);
  const Eigen::VectorXd a3 = accel(qs, v3);
  const Eigen::VectorXd v4 = v + h * a3;
  integrate(c.model, q, v3, h, qs);
  const Eigen::VectorXd a4 = accel(qs, v4);
  integrate(c.model, q, ((v + 2.0 * v2 + 2.0 * v3 + v4) / 6.0).eval(), h, q);
  v += h / 6.0 * (a1 + 2.0 * a2 + 2.0 * a3 + a4);
  projectPositions(c.model, c.data, c.cd, c.loops, q, 1e-12, 100);
  projectVelocities(c.model, c.data, c.cd, c.loops, q, v);
}

// The state reached from (c.q, c.v) after `steps` unprojected steps of h.
std::pair<Eigen::VectorXd, Eigen::VectorXd> unprojected(Closed& c, int steps, double h) {
  ConstrainedRungeKutta4 rk(c.model);
  ConstrainedStepSettings settings;
  settings.project = false;
  Eigen::VectorXd q = c.q, v = c.v;
  for (int k = 0; k < steps; ++k) rk.step(c.model, c.data, c.cd, c.loops, q, v, c.tau, h, settings);
  return {q, v};
}

}  // namespace

// Same trajectory as the app's former loop step, to rounding: 300 steps of 2 ms (the app's default step) on the
// planar closed models. Each step rounds at about 1e-16 relative and the projections contract errors normal to
// the manifold, so the difference that accumulates along it stays far below 1e-11 (measured: 4e-15 to 7e-15).
BOOST_AUTO_TEST_CASE(same_trajectory_as_the_former_app_step) {
  for (const char* name : {"four_bar.urdf", "slider_crank.urdf", "five_bar.urdf"}) {
    Closed c(name, 1);
    ConstrainedRungeKutta4 rk(c.model);
    Eigen::VectorXd q = c.q, v = c.v, q_ref = c.q, v_ref = c.v;
    double worst = 0.0;
    for (int k = 0; k < 300; ++k) {
      rk.step(c.model, c.data, c.cd, c.loops, q, v, c.tau, 2e-3);
      appStep(c, q_ref, v_ref, 2e-3);
      worst = std::max({worst, (q - q_ref).cwiseAbs().maxCoeff(), (v - v_ref).cwiseAbs().maxCoeff()});
    }
    BOOST_TEST_MESSAGE(name << ": largest difference from the former app step " << worst);
    BOOST_TEST(worst <= 1e-11, name << ": largest difference " << worst);
  }
}

// Fourth order without projection: the error at T = 0.24 s against a reference run with a 32 times smaller
// step (whose own error is 32^4 ~ 1e6 times smaller) falls by 2^4 = 16 per halving of h. Errors in the tangent
// space (difference(q_ref, q), v - v_ref), max norm. h = 0.02, 0.01, 0.005 keep the error (1e-6 to 1e-9) well
// above the reference's and the rounding; the observed order lies within 0.3 of 4 (the next term of the error
// series; at h = 0.04 the delta robot is still pre-asymptotic, order 3.7).
// The delta robot's floating platform checks the order on SE(3) (the rate correction of the stages).
BOOST_AUTO_TEST_CASE(fourth_order_without_projection) {
  for (const char* name : {"four_bar.urdf", "slider_crank.urdf", "delta_robot.urdf"}) {
    Closed c(name, 2);
    const double T = 0.24;
    const auto [q_ref, v_ref] = unprojected(c, 32 * 48, T / (32 * 48));
    double previous = 0.0;
    for (int steps : {12, 24, 48}) {
      const auto [q, v] = unprojected(c, steps, T / steps);
      const double error = std::max(difference(c.model, q_ref, q).cwiseAbs().maxCoeff(), (v - v_ref).cwiseAbs().maxCoeff());
      if (steps > 12) {
        const double order = std::log2(previous / error);
        BOOST_TEST_MESSAGE(name << ": " << steps << " steps, error " << error << ", order " << order);
        BOOST_TEST(std::abs(order - 4.0) <= 0.3, name << ": order " << order << " from " << previous << " to " << error);
      }
      previous = error;
    }
  }
}

// With projection the closures hold to the projection's tolerance after every step (|C| <= 1e-12, the
// default) and G v = 0 to rounding (|G v| <= 1e-12 (1 + |v|), max norms, against 1e-13 measured), over 500 steps
// of 2 ms. Without it the planar runs drift past the tolerance (checked, so that the test says something:
// measured 5e-11 and 1.1e-11 for the four-bar and the slider-crank); the delta robot's unprojected run, with
// its random joint forces, drifts until its closures contradict each other, so it is left out of that check.
BOOST_AUTO_TEST_CASE(projection_keeps_the_closures) {
  for (const char* name : {"four_bar.urdf", "slider_crank.urdf", "five_bar.urdf", "delta_robot.urdf"}) {
    Closed c(name, 3);
    ConstrainedRungeKutta4 rk(c.model);
    ConstraintKinematics ck(c.model, c.loops);
    Eigen::VectorXd q = c.q, v = c.v;
    double worst_c = 0.0, worst_gv = 0.0;
    for (int k = 0; k < 500; ++k) {
      rk.step(c.model, c.data, c.cd, c.loops, q, v, c.tau, 2e-3);
      constraintJacobian(c.model, c.data, c.loops, ck, q);
      worst_c = std::max(worst_c, ck.C.cwiseAbs().maxCoeff());
      worst_gv = std::max(worst_gv, (ck.G * v).cwiseAbs().maxCoeff() / (1.0 + v.cwiseAbs().maxCoeff()));
    }
    BOOST_TEST_MESSAGE(name << ": largest |C| " << worst_c << ", |G v| / (1 + |v|) " << worst_gv);
    BOOST_TEST(worst_c <= 1e-12, name << ": |C| " << worst_c);
    BOOST_TEST(worst_gv <= 1e-12, name << ": |G v| " << worst_gv);
    if (std::string(name) == "delta_robot.urdf") continue;
    const Eigen::VectorXd q_free = unprojected(c, 500, 2e-3).first;
    constraintJacobian(c.model, c.data, c.loops, ck, q_free);
    BOOST_TEST(ck.C.cwiseAbs().maxCoeff() > 5e-12, name << ": unprojected drift " << ck.C.cwiseAbs().maxCoeff());
  }
}

// ConstrainedImplicitDampingEuler against its composition from the public calls, written out: v += h qdd from
// forwardDynamicsConstrained with implicit_damping_step = h, q = q (+) h v, then projectPositions(1e-12, 100) and
// projectVelocities. The same operations in the same order, so the two agree to rounding (1e-13 over 200 steps;
// measured: 0); the closures hold to the projection's tolerance after every step.
BOOST_AUTO_TEST_CASE(constrained_implicit_damping_step_is_its_composition) {
  for (const char* name : {"four_bar.urdf", "slider_crank.urdf", "five_bar.urdf"}) {
    Closed c(name, 7);
    ConstrainedImplicitDampingEuler euler(c.model);
    ConstraintKinematics ck(c.model, c.loops);
    Eigen::VectorXd q = c.q, v = c.v, q_ref = c.q, v_ref = c.v;
    const double h = 2e-3;
    double worst = 0.0, worst_c = 0.0;
    for (int k = 0; k < 200; ++k) {
      euler.step(c.model, c.data, c.cd, c.loops, q, v, c.tau, h);
      ConstrainedDynamicsSettings settings;
      settings.dynamics.implicit_damping_step = h;
      v_ref += h * forwardDynamicsConstrained(c.model, c.data, c.cd, c.loops, q_ref, v_ref, c.tau, settings);
      integrate(c.model, q_ref, v_ref, h, q_ref);
      projectPositions(c.model, c.data, c.cd, c.loops, q_ref, 1e-12, 100);
      projectVelocities(c.model, c.data, c.cd, c.loops, q_ref, v_ref);
      worst = std::max({worst, (q - q_ref).cwiseAbs().maxCoeff(), (v - v_ref).cwiseAbs().maxCoeff()});
      constraintJacobian(c.model, c.data, c.loops, ck, q);
      worst_c = std::max(worst_c, ck.C.cwiseAbs().maxCoeff());
    }
    BOOST_TEST(worst <= 1e-13, name << ": largest difference from the composition " << worst);
    BOOST_TEST(worst_c <= 1e-12, name << ": |C| " << worst_c);
  }
  Closed c("four_bar.urdf", 5), other("five_bar.urdf", 5);
  ConstrainedImplicitDampingEuler euler(c.model);
  Eigen::VectorXd q = c.q, v = c.v, short_v = c.v.head(c.model.nv() - 1);
  BOOST_CHECK_THROW(euler.step(c.model, c.data, c.cd, c.loops, short_v, v, c.tau, 1e-3), InvalidArgument);
  BOOST_CHECK_THROW(euler.step(c.model, c.data, c.cd, c.loops, q, v, c.tau, 0.0), InvalidArgument);
  BOOST_CHECK_THROW(euler.step(c.model, c.data, other.cd, c.loops, q, v, c.tau, 1e-3), InvalidArgument);
  BOOST_CHECK_THROW(euler.step(other.model, other.data, other.cd, other.loops, other.q, other.v, other.tau, 1e-3),
                    InvalidArgument);
  BOOST_TEST((q == c.q && v == c.v), "a refused step leaves (q, v) as they were");
}

// A and B of the unprojected step against centred differences of the step itself: the state perturbed in the
// tangent space (q by integrate(q, dq)), the next state compared in the tangent space at the unperturbed next
// state, columns (dq, dv, dtau). Fourth-order differences (8 (y(e) - y(-e)) - (y(2e) - y(-2e))) / 12e with
// e = 1e-3: truncation e^4 |y^(5)| / 30 and rounding ~ 1e-16 |y| / e both ~ 1e-12 relative here, while the
// constrained solve of the delta robot rounds at ~1e-11 (test_constrained_derivatives.cpp), so 1e-6 relative
// (Frobenius norm of the whole matrix) is met with a wide margin (measured: 5e-13 to 5e-11 on the planar loops,
// 4e-9 on the delta robot) and an error in any term shows far above it.
// h = 0.01; the settings: no stabilisation, and Baumgarte gains (whose terms in d qdd the step must carry).
BOOST_AUTO_TEST_CASE(step_jacobians_match_finite_differences) {
  for (const char* name : {"four_bar.urdf", "slider_crank.urdf", "five_bar.urdf", "delta_robot.urdf"}) {
    for (bool baumgarte : {false, true}) {
      Closed c(name, 4);
      const int n = c.model.nv();
      const double h = 0.01, e = 1e-3;
      ConstrainedDynamicsSettings dynamics;
      if (baumgarte) {
        dynamics.baumgarte_alpha = 5.0;
        dynamics.baumgarte_beta = 10.0;
      }
      ConstrainedStepSettings settings;
      settings.dynamics = dynamics;
      settings.project = false;
      ConstrainedStepJacobians jacobians(c.model, c.loops);
      jacobians.rungeKutta4(c.model, c.data, c.cd, c.loops, c.q, c.v, c.tau, h, dynamics);
      ConstrainedRungeKutta4 rk(c.model);
      Eigen::VectorXd q1 = c.q, v1 = c.v;
      rk.step(c.model, c.data, c.cd, c.loops, q1, v1, c.tau, h, settings);
      const auto next = [&](const Eigen::VectorXd& x) {
        Eigen::VectorXd qq = integrate(c.model, c.q, x.head(n), 1.0), vv = c.v + x.segment(n, n);
        rk.step(c.model, c.data, c.cd, c.loops, qq, vv, c.tau + x.tail(n), h, settings);
        Eigen::VectorXd out(2 * n);
        out << difference(c.model, q1, qq), vv - v1;
        return out;
      };
      Eigen::MatrixXd numeric(2 * n, 3 * n);
      Eigen::VectorXd x = Eigen::VectorXd::Zero(3 * n);
      for (int k = 0; k < 3 * n; ++k) {
        const auto at = [&](double t) {
          x[k] = t;
          const Eigen::VectorXd y = next(x);
          x[k] = 0.0;
          return y;
        };
        numeric.col(k) = (8.0 * (at(e) - at(-e)) - (at(2.0 * e) - at(-2.0 * e))) / (12.0 * e);
      }
      const std::string label = std::string(name) + (baumgarte ? " Baumgarte" : " plain");
      BOOST_TEST_MESSAGE(label << ": A " << relErr(jacobians.A, numeric.leftCols(2 * n)) << ", B "
                               << relErr(jacobians.B, numeric.rightCols(n)));
      BOOST_TEST(relErr(jacobians.A, numeric.leftCols(2 * n)) <= 1e-6, label << ": A " << relErr(jacobians.A, numeric.leftCols(2 * n)));
      BOOST_TEST(relErr(jacobians.B, numeric.rightCols(n)) <= 1e-6, label << ": B " << relErr(jacobians.B, numeric.rightCols(n)));
    }
  }
}

// Bad arguments are refused at the door with abdyn::InvalidArgument naming them.
BOOST_AUTO_TEST_CASE(bad_arguments_throw) {
  Closed c("four_bar.urdf", 5), other("five_bar.urdf", 5);
  ConstrainedRungeKutta4 rk(c.model);
  ConstrainedStepJacobians jacobians(c.model, c.loops);
  const auto names = [](const std::string& what) {
    return [what](const InvalidArgument& error) { return std::string(error.what()).find(what) != std::string::npos; };
  };
  Eigen::VectorXd q = c.q, v = c.v, short_v = c.v.head(c.model.nv() - 1);
  BOOST_CHECK_EXCEPTION(rk.step(c.model, c.data, c.cd, c.loops, short_v, v, c.tau, 1e-3), InvalidArgument, names("'q'"));
  BOOST_CHECK_EXCEPTION(rk.step(c.model, c.data, c.cd, c.loops, q, short_v, c.tau, 1e-3), InvalidArgument, names("'v'"));
  BOOST_CHECK_EXCEPTION(rk.step(c.model, c.data, c.cd, c.loops, q, v, short_v, 1e-3), InvalidArgument, names("'tau'"));
  BOOST_CHECK_EXCEPTION(rk.step(c.model, c.data, c.cd, c.loops, q, v, c.tau, 0.0), InvalidArgument, names("'h'"));
  BOOST_CHECK_EXCEPTION(rk.step(c.model, c.data, other.cd, c.loops, q, v, c.tau, 1e-3), InvalidArgument, names("'cd'"));
  BOOST_CHECK_EXCEPTION(rk.step(other.model, other.data, other.cd, other.loops, other.q, other.v, other.tau, 1e-3),
                        InvalidArgument, names("abdyn::ConstrainedRungeKutta4::step"));
  ConstrainedStepSettings settings;
  settings.position_tolerance = -1.0;
  BOOST_CHECK_EXCEPTION(rk.step(c.model, c.data, c.cd, c.loops, q, v, c.tau, 1e-3, settings), InvalidArgument,
                        names("settings.position_tolerance"));
  settings = {};
  settings.max_projection_iterations = 0;
  BOOST_CHECK_EXCEPTION(rk.step(c.model, c.data, c.cd, c.loops, q, v, c.tau, 1e-3, settings), InvalidArgument,
                        names("settings.max_projection_iterations"));
  settings = {};
  settings.dynamics.erp = 2.0;
  BOOST_CHECK_EXCEPTION(rk.step(c.model, c.data, c.cd, c.loops, q, v, c.tau, 1e-3, settings), InvalidArgument,
                        names("settings.erp"));
  BOOST_TEST((q == c.q && v == c.v), "a refused step leaves (q, v) as they were");
  BOOST_CHECK_EXCEPTION(jacobians.rungeKutta4(c.model, c.data, c.cd, c.loops, short_v, v, c.tau, 1e-3), InvalidArgument,
                        names("'q'"));
  BOOST_CHECK_EXCEPTION(jacobians.rungeKutta4(c.model, c.data, c.cd, c.loops, q, short_v, c.tau, 1e-3), InvalidArgument,
                        names("'v'"));
  BOOST_CHECK_EXCEPTION(jacobians.rungeKutta4(c.model, c.data, c.cd, c.loops, q, v, short_v, 1e-3), InvalidArgument,
                        names("'tau'"));
  BOOST_CHECK_EXCEPTION(jacobians.rungeKutta4(c.model, c.data, c.cd, c.loops, q, v, c.tau, -1.0), InvalidArgument,
                        names("'h'"));
  BOOST_CHECK_EXCEPTION(jacobians.rungeKutta4(other.model, other.data, other.cd, other.loops, other.q, other.v, other.tau, 1e-3),
                        InvalidArgument, names("built for another model"));
}
