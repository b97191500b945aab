#define BOOST_TEST_MODULE derivatives
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>

#include "abdyn/algorithms/aba.hpp"
#include "abdyn/algorithms/crba.hpp"
#include "abdyn/algorithms/derivatives.hpp"
#include "abdyn/algorithms/rnea.hpp"
#include "abdyn/error.hpp"
#include "abdyn/integrators/explicit_euler.hpp"
#include "abdyn/integrators/runge_kutta4.hpp"
#include "abdyn/integrators/semi_implicit_euler.hpp"
#include "abdyn/integrators/step_derivatives.hpp"
#include "abdyn/io/urdf.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/configuration_derivatives.hpp"
#include "abdyn/model/random_model.hpp"
#include "finite_differences.hpp"
#include "test_helpers.hpp"

using namespace abdyn;
using namespace abdyn::test;

// Every derivative is checked against centred finite differences in the tangent space: column k of
// d y / d q is (y(integrate(q, h e_k)) - y(integrate(q, -h e_k))) / 2h, of d y / d x for a vector
// argument (y(x + h e_k) - y(x - h e_k)) / 2h. Step h = 1e-5: the truncation error is h^2 |y'''| / 6 and
// the rounding error about eps |y| / h (eps = 2.2e-16), so both are near 1e-10 of the scale of y and its
// derivatives, the optimum of h^2 + eps / h being h ~ eps^(1/3) ~ 6e-6. Agreement is asked to 1e-6 in the
// Frobenius norm of the whole matrix relative to the difference quotient's: four orders above the expected
// error, and far below any error of a term or a sign (which shows up at the scale of the entry).
// tau and qdd are quadratic in v and linear in qdd and tau, so centred differences in those arguments have no
// truncation error at all: there the step is 1e-2, which divides the rounding error by 1000. That matters for
// forward dynamics on ill-conditioned models, where ABA's own rounding in qdd is about eps cond(M) relative
// (the delta robot's opened tree has cond(M) ~ 1e5: 1e-6 after division by h = 1e-5).
namespace {

constexpr double kStep = 1e-5;
constexpr double kTol = 1e-6;

struct Case {
  std::string label;
  Model model;
};

std::vector<Force> randomForces(const Model& model, std::mt19937& rng) {
  std::vector<Force> f(model.nbodies());
  for (auto& fi : f) fi = Force(randomVector6(rng));
  return f;
}

// Centred differences of y(integrate(q, h e_k)) over the nv tangent directions (or only the columns listed).
Eigen::MatrixXd fdTangent(const Model& model, const Eigen::VectorXd& q, const VectorFunction& y,
                          const std::vector<int>& columns = {}) {
  const int m = columns.empty() ? model.nv() : static_cast<int>(columns.size());
  Eigen::MatrixXd J(y(q).size(), m);
  Eigen::VectorXd e = Eigen::VectorXd::Zero(model.nv());
  for (int c = 0; c < m; ++c) {
    const int k = columns.empty() ? c : columns[c];
    e[k] = kStep;
    const Eigen::VectorXd plus = y(integrate(model, q, e, 1.0));
    const Eigen::VectorXd minus = y(integrate(model, q, -e, 1.0));
    J.col(c) = (plus - minus) / (2.0 * kStep);
    e[k] = 0.0;
  }
  return J;
}

// The columns the dynamics tests difference: all of them up to 40 coordinates; on larger models (the
// 100-body trees) 10 distinct columns drawn at random per state, which keeps the test within seconds
// under the sanitizers while every column of every joint type is still reached across states and models.
std::vector<int> sampleColumns(int nv, std::mt19937& rng) {
  std::vector<int> all(nv);
  for (int k = 0; k < nv; ++k) all[k] = k;
  if (nv <= 40) return all;
  std::shuffle(all.begin(), all.end(), rng);
  all.resize(10);
  return all;
}

// The listed columns of a matrix.
Eigen::MatrixXd columnsOf(const Eigen::MatrixXd& A, const std::vector<int>& columns) {
  Eigen::MatrixXd out(A.rows(), static_cast<Eigen::Index>(columns.size()));
  for (size_t c = 0; c < columns.size(); ++c) out.col(static_cast<Eigen::Index>(c)) = A.col(columns[c]);
  return out;
}

// Random trees and chains of 1 to 100 bodies with every joint type, damping and armature, fixed and
// floating base.
std::vector<Case> randomCases() {
  std::mt19937 rng(19);
  std::vector<Case> cases;
  for (int bodies : {1, 2, 5, 12, 30, 100}) {
    for (bool chain : {false, true}) {
      for (bool floating : {false, true}) {
        std::ostringstream label;
        label << (chain ? "chain " : "tree ") << bodies << (floating ? " floating" : " fixed");
        cases.push_back({label.str(), randomTree({bodies, chain, floating, true, true}, rng)});
      }
    }
  }
  return cases;
}

// Every bundled model, fixed and floating base, except the free-floating variants whose massless root
// carries one body on one joint (M singular: the loader gives a kinematic model, test_urdf_real checks
// that).
std::vector<Case> bundledCases() {
  std::vector<Case> cases;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(ABDYN_SOURCE_DIR) + "/models")) {
    if (entry.path().extension() != ".urdf") continue;
    bool declares_floating_joint = false;
    for (bool floating : {false, true}) {
      if (floating && declares_floating_joint) continue;
      UrdfOptions options;
      options.floating_base = floating;
      Model model = loadUrdf(entry.path().string(), options);
      if (!model.hasDynamics()) continue;
      for (int i = 1; i < model.nbodies(); ++i) declares_floating_joint |= model.joint(i).type == JointType::Floating;
      cases.push_back({entry.path().filename().string() + (floating ? " floating" : " fixed"), std::move(model)});
    }
  }
  return cases;
}

// Checks inverse and forward dynamics derivatives (with and without external forces) at `states`
// random states against centred differences, the forward ones at the first `forward_states` of them;
// returns the worst relative error seen.
double checkDynamicsDerivatives(const Case& c, int states, int forward_states, std::mt19937& rng) {
  const Model& model = c.model;
  Data data(model), fd(model);
  double worst = 0.0;
  const auto check = [&](const Eigen::MatrixXd& analytic, const Eigen::MatrixXd& numeric, const char* what, int s) {
    const double err = relErr(analytic, numeric);
    worst = std::max(worst, err);
    BOOST_TEST(err <= kTol, c.label << " state " << s << " " << what << ": relative error " << err);
  };
  for (int s = 0; s < states; ++s) {
    const Eigen::VectorXd q = randomConfiguration(model, rng);
    const Eigen::VectorXd v = randomVector(model.nv(), rng);
    const Eigen::VectorXd qdd = randomVector(model.nv(), rng);
    const Eigen::VectorXd tau = randomVector(model.nv(), rng);
    const std::vector<Force> f_ext = randomForces(model, rng);
    const bool with_forces = s % 2 == 1;  // alternate the overloads

    const auto rnea = [&](const Eigen::VectorXd& qq, const Eigen::VectorXd& vv, const Eigen::VectorXd& aa) {
      return Eigen::VectorXd(with_forces ? inverseDynamics(model, fd, qq, vv, aa, f_ext) : inverseDynamics(model, fd, qq, vv, aa));
    };
    if (with_forces) {
      inverseDynamicsDerivatives(model, data, q, v, qdd, f_ext);
    } else {
      inverseDynamicsDerivatives(model, data, q, v, qdd);
    }
    ABDYN_CHECK_REL(data.tau, rnea(q, v, qdd), 1e-12);
    ABDYN_CHECK_REL(data.M, massMatrix(model, fd, q), 1e-12);
    const std::vector<int> cols = sampleColumns(model.nv(), rng);
    check(columnsOf(data.dtau_dq, cols), fdTangent(model, q, [&](const Eigen::VectorXd& x) { return rnea(x, v, qdd); }, cols),
          "dtau/dq", s);
    check(columnsOf(data.dtau_dv, cols),
          fdVector(v, [&](const Eigen::VectorXd& x) { return rnea(q, x, qdd); }, kStepQuadratic, cols), "dtau/dv", s);

    if (s >= forward_states) continue;
    const auto aba = [&](const Eigen::VectorXd& qq, const Eigen::VectorXd& vv, const Eigen::VectorXd& tt) {
      return Eigen::VectorXd(with_forces ? forwardDynamics(model, fd, qq, vv, tt, f_ext) : forwardDynamics(model, fd, qq, vv, tt));
    };
    if (with_forces) {
      forwardDynamicsDerivatives(model, data, q, v, tau, f_ext);
    } else {
      forwardDynamicsDerivatives(model, data, q, v, tau);
    }
    // forwardDynamicsDerivatives runs its own ABA in world coordinates about the world origin: the same
    // arithmetic on different numbers (lever arms from the origin), so the two roundoffs differ by up to a
    // few 1e-12 on these models; 1e-10 leaves room for their conditioning without hiding a wrong term.
    ABDYN_CHECK_REL(data.qdd, aba(q, v, tau), 1e-10);
    // ABA's factors as forwardDynamics (fd, just run at the same state) leaves them, for RowResponse.
    ABDYN_CHECK_REL(data.aba.U, fd.aba.U, 1e-10);
    ABDYN_CHECK_REL(data.aba.Dinv, fd.aba.Dinv, 1e-10);
    check(columnsOf(data.dqdd_dq, cols), fdTangent(model, q, [&](const Eigen::VectorXd& x) { return aba(x, v, tau); }, cols),
          "dqdd/dq", s);
    check(columnsOf(data.dqdd_dv, cols),
          fdVector(v, [&](const Eigen::VectorXd& x) { return aba(q, x, tau); }, kStepQuadratic, cols), "dqdd/dv", s);
    check(columnsOf(data.dqdd_dtau, cols),
          fdVector(tau, [&](const Eigen::VectorXd& x) { return aba(q, v, x); }, kStepQuadratic, cols), "dqdd/dtau", s);
  }
  return worst;
}

}  // namespace

BOOST_AUTO_TEST_CASE(dynamics_derivatives_match_finite_differences_on_bundled_models) {
  std::mt19937 rng(1);
  double worst = 0.0;
  for (const Case& c : bundledCases()) worst = std::max(worst, checkDynamicsDerivatives(c, 20, 20, rng));
  BOOST_TEST_MESSAGE("bundled models: worst relative error against finite differences " << worst);
}

BOOST_AUTO_TEST_CASE(dynamics_derivatives_match_finite_differences_on_random_trees) {
  std::mt19937 rng(2);
  double worst = 0.0;
  // The forward derivatives' two dense nv x nv products cost O(nv^3): on the 100-body trees (nv up to a few
  // hundred with every joint type) they dominate the test under the sanitizers, so those trees check the
  // forward derivatives at 4 of their 20 states.
  for (const Case& c : randomCases()) {
    worst = std::max(worst, checkDynamicsDerivatives(c, 20, c.model.nbodies() > 50 ? 4 : 20, rng));
  }
  BOOST_TEST_MESSAGE("random trees: worst relative error against finite differences " << worst);
}

// Structure from theory, on random trees. (1) h(q, v) = C(q, v) v is quadratic in v, so d tau / d v v = 2 h
// (damping off): any model, floating or not. (2) For coordinates that are true generalised coordinates
// (revolute joints only, so v = qdot), the Christoffel form of C gives d h / d v + (d h / d v)^T = 2 dM/dt,
// dM/dt taken by centred differences along q + t v. (3) M^-1 M = 1 for the forward call's d qdd / d tau.
BOOST_AUTO_TEST_CASE(structure_of_the_velocity_derivative_and_of_the_inverse_mass_matrix) {
  std::mt19937 rng(3);
  const DynamicsOptions no_damping{true, false};
  for (bool floating : {false, true}) {
    for (int bodies : {3, 20}) {
      const Model model = randomTree({bodies, false, floating, true, true}, rng);
      Data data(model), other(model);
      for (int s = 0; s < 5; ++s) {
        const Eigen::VectorXd q = randomConfiguration(model, rng);
        const Eigen::VectorXd v = randomVector(model.nv(), rng);
        const Eigen::VectorXd qdd = randomVector(model.nv(), rng);
        inverseDynamicsDerivatives(model, data, q, v, qdd, no_damping);
        const Eigen::VectorXd g = gravityTorques(model, other, q);  // before: both calls return other.tau
        const Eigen::VectorXd h = nonlinearEffects(model, other, q, v, no_damping) - g;
        ABDYN_CHECK_REL((data.dtau_dv * v).eval(), (2.0 * h).eval(), 1e-12);
        forwardDynamicsDerivatives(model, data, q, v, qdd);
        const Eigen::MatrixXd I = data.dqdd_dtau * massMatrix(model, other, q);
        ABDYN_CHECK_NEAR(I, Eigen::MatrixXd::Identity(model.nv(), model.nv()), 1e-10);
      }
    }
  }
  for (int bodies : {3, 20}) {
    const Model model = randomTree({bodies, false, false, false, false}, rng);  // revolute joints: v = qdot
    Data data(model), other(model);
    for (int s = 0; s < 5; ++s) {
      const Eigen::VectorXd q = randomConfiguration(model, rng);
      const Eigen::VectorXd v = randomVector(model.nv(), rng);
      inverseDynamicsDerivatives(model, data, q, v, Eigen::VectorXd::Zero(model.nv()), no_damping);
      const Eigen::MatrixXd plus = massMatrix(model, other, q + kStep * v);
      const Eigen::MatrixXd minus = massMatrix(model, other, q - kStep * v);
      const Eigen::MatrixXd Mdot = (plus - minus) / (2.0 * kStep);
      ABDYN_CHECK_REL(Eigen::MatrixXd(data.dtau_dv + data.dtau_dv.transpose()), Eigen::MatrixXd(2.0 * Mdot), 1e-7);
    }
  }
}

// Implicit damping (DynamicsOptions::implicit_damping_step h) adds h D qdd to RNEA's tau: the derivative call
// leaves the same tau and d tau / d qdd = M + h D, which forward dynamics with the same options inverts.
BOOST_AUTO_TEST_CASE(implicit_damping_enters_tau_and_its_qdd_derivative) {
  std::mt19937 rng(11);
  const Model model = randomTree({6, false, true, true, true}, rng);  // with damping and armature
  Data data(model), other(model);
  DynamicsOptions options;
  options.implicit_damping_step = 0.05;
  const Eigen::VectorXd q = randomConfiguration(model, rng);
  const Eigen::VectorXd v = randomVector(model.nv(), rng), qdd = randomVector(model.nv(), rng);
  inverseDynamicsDerivatives(model, data, q, v, qdd, options);
  ABDYN_CHECK_REL(data.tau, inverseDynamics(model, other, q, v, qdd, options), 1e-12);
  const Eigen::MatrixXd dtau_dqdd =
      fdVector(qdd, [&](const Eigen::VectorXd& x) { return Eigen::VectorXd(inverseDynamics(model, other, q, v, x, options)); },
               kStepQuadratic);
  ABDYN_CHECK_REL(data.M, dtau_dqdd, 1e-10);
  forwardDynamicsDerivatives(model, data, q, v, data.tau, options);
  ABDYN_CHECK_REL(data.qdd, qdd, 1e-9);
}

// The Lie-group Jacobians against centred differences. Outputs on the manifold are compared in the tangent
// space at the unperturbed result: difference(y0, y(.)), which is exactly the tangent offset for small offsets.
// Velocities up to 3 per coordinate (rotations of several radians) reach both the series (angle < 1) and the
// closed forms of the Jacobians.
BOOST_AUTO_TEST_CASE(integrate_and_difference_jacobians_match_finite_differences) {
  std::mt19937 rng(4);
  for (int bodies : {1, 4, 12}) {
    for (bool floating : {false, true}) {
      const Model model = randomTree({bodies, false, floating, true, false}, rng);
      const int n = model.nv();
      Eigen::MatrixXd Jq, Jv, J0, J1;
      for (int s = 0; s < 20; ++s) {
        const Eigen::VectorXd q = randomConfiguration(model, rng);
        const Eigen::VectorXd v = randomVector(n, rng, s < 10 ? 0.3 : 3.0);
        const double dt = 0.7;
        const Eigen::VectorXd q1 = integrate(model, q, v, dt);
        integrateJacobians(model, q, v, dt, Jq, Jv);
        ABDYN_CHECK_REL(Jq, fdTangent(model, q, [&](const Eigen::VectorXd& x) {
                          return difference(model, q1, integrate(model, x, v, dt));
                        }), kTol);
        ABDYN_CHECK_REL(Jv, fdVector(v, [&](const Eigen::VectorXd& x) {
                          return difference(model, q1, integrate(model, q, x, dt));
                        }, kStep), kTol);
        // Offsets of at most 1.7 per coordinate keep every rotation angle below 1.7 sqrt(3) < pi, where
        // difference inverts integrate.
        const Eigen::VectorXd xi = randomVector(n, rng, s < 10 ? 0.3 : 1.7);
        const Eigen::VectorXd q2 = integrate(model, q, xi, 1.0);
        differenceJacobians(model, q, q2, J0, J1);
        ABDYN_CHECK_REL(J0, fdTangent(model, q, [&](const Eigen::VectorXd& x) { return difference(model, x, q2); }), kTol);
        ABDYN_CHECK_REL(J1, fdTangent(model, q2, [&](const Eigen::VectorXd& x) { return difference(model, q, x); }), kTol);
        Eigen::MatrixXd Rt, Rv;
        exponentialCoordinateRateJacobians(model, xi, v, Rt, Rv);
        const auto rate = [&](const Eigen::VectorXd& t, const Eigen::VectorXd& w) {
          Eigen::VectorXd out;
          exponentialCoordinateRate(model, t, w, out);
          return out;
        };
        ABDYN_CHECK_REL(Rt, fdVector(xi, [&](const Eigen::VectorXd& x) { return rate(x, v); }, kStep), kTol);
        ABDYN_CHECK_REL(Rv, fdVector(v, [&](const Eigen::VectorXd& x) { return rate(xi, x); }, kStep), kTol);
      }
    }
  }
}

// The step Jacobians against centred differences of the integrators' own steps: the state is perturbed in
// the tangent space, the next state compared in the tangent space at the unperturbed next state, rows and
// columns ordered (dq, dv). Models: random trees with every joint type, fixed and floating, and the bundled
// quadruped on a floating base.
BOOST_AUTO_TEST_CASE(step_jacobians_match_finite_differences) {
  std::mt19937 rng(5);
  std::vector<Case> cases;
  for (bool floating : {false, true}) {
    cases.push_back({floating ? "tree 6 floating" : "tree 6 fixed", randomTree({6, false, floating, true, true}, rng)});
  }
  UrdfOptions floating_base;
  floating_base.floating_base = true;
  cases.push_back({"quadruped floating", loadUrdf(std::string(ABDYN_SOURCE_DIR) + "/models/quadruped.urdf", floating_base)});
  const double h = 0.01;
  for (const Case& c : cases) {
    const Model& model = c.model;
    const int n = model.nv();
    Data data(model), fd(model);
    StepJacobians jacobians(model);
    ExplicitEuler euler(model);
    SemiImplicitEuler symplectic(model);
    RungeKutta4 rk4(model);
    for (int method = 0; method < 3; ++method) {
      const auto step = [&](Eigen::VectorXd& q, Eigen::VectorXd& v, const Eigen::VectorXd& tau) {
        if (method == 0) euler.step(model, fd, q, v, tau, h);
        if (method == 1) symplectic.step(model, fd, q, v, tau, h);
        if (method == 2) rk4.step(model, fd, q, v, tau, h);
      };
      for (int s = 0; s < 5; ++s) {
        const Eigen::VectorXd q = randomConfiguration(model, rng);
        const Eigen::VectorXd v = randomVector(n, rng);
        const Eigen::VectorXd tau = randomVector(n, rng);
        if (method == 0) jacobians.explicitEuler(model, data, q, v, tau, h);
        if (method == 1) jacobians.semiImplicitEuler(model, data, q, v, tau, h);
        if (method == 2) jacobians.rungeKutta4(model, data, q, v, tau, h);
        Eigen::VectorXd q1 = q, v1 = v;
        step(q1, v1, tau);
        // The next state in tangent coordinates at (q1, v1), as a function of the tangent state (dq, dv, dtau).
        const auto next = [&](const Eigen::VectorXd& x) {
          Eigen::VectorXd qq = integrate(model, q, x.head(n), 1.0), vv = v + x.segment(n, n);
          step(qq, vv, tau + x.tail(n));
          Eigen::VectorXd out(2 * n);
          out << difference(model, q1, qq), vv - v1;
          return out;
        };
        const Eigen::MatrixXd numeric = fdVector(Eigen::VectorXd::Zero(3 * n), next, kStep);
        BOOST_TEST(relErr(jacobians.A, numeric.leftCols(2 * n)) <= kTol, c.label << " method " << method << " A");
        BOOST_TEST(relErr(jacobians.B, numeric.rightCols(n)) <= kTol, c.label << " method " << method << " B");
      }
    }
  }
}

// Wrong sizes are refused with abdyn::InvalidArgument naming the argument.
BOOST_AUTO_TEST_CASE(bad_arguments_throw) {
  std::mt19937 rng(6);
  const Model model = randomTree({4, false, true, true, true}, rng);
  Data data(model);
  const int n = model.nv();
  const Eigen::VectorXd q = neutral(model), v = Eigen::VectorXd::Zero(n), short_v = Eigen::VectorXd::Zero(n - 1);
  const std::vector<Force> short_f(model.nbodies() - 1);
  const auto names = [](const std::string& argument) {
    return [argument](const InvalidArgument& e) {
      return std::string(e.what()).find("'" + argument + "'") != std::string::npos;
    };
  };
  BOOST_CHECK_EXCEPTION(inverseDynamicsDerivatives(model, data, v, v, v), InvalidArgument, names("q"));  // size nv, not nq
  BOOST_CHECK_EXCEPTION(inverseDynamicsDerivatives(model, data, q, short_v, v), InvalidArgument, names("v"));
  BOOST_CHECK_EXCEPTION(inverseDynamicsDerivatives(model, data, q, v, short_v), InvalidArgument, names("qdd"));
  BOOST_CHECK_EXCEPTION(inverseDynamicsDerivatives(model, data, q, v, v, short_f), InvalidArgument, names("f_ext"));
  BOOST_CHECK_EXCEPTION(forwardDynamicsDerivatives(model, data, v, v, v), InvalidArgument, names("q"));
  BOOST_CHECK_EXCEPTION(forwardDynamicsDerivatives(model, data, q, short_v, v), InvalidArgument, names("v"));
  BOOST_CHECK_EXCEPTION(forwardDynamicsDerivatives(model, data, q, v, short_v), InvalidArgument, names("tau"));
  BOOST_CHECK_EXCEPTION(forwardDynamicsDerivatives(model, data, q, v, v, short_f), InvalidArgument, names("f_ext"));
  Eigen::MatrixXd a, b;
  BOOST_CHECK_EXCEPTION(integrateJacobians(model, v, v, 1.0, a, b), InvalidArgument, names("q"));
  BOOST_CHECK_EXCEPTION(integrateJacobians(model, q, short_v, 1.0, a, b), InvalidArgument, names("v"));
  BOOST_CHECK_EXCEPTION(differenceJacobians(model, q, v, a, b), InvalidArgument, names("q"));
  BOOST_CHECK_EXCEPTION(exponentialCoordinateRateJacobians(model, short_v, v, a, b), InvalidArgument, names("theta"));
  StepJacobians jacobians(model);
  BOOST_CHECK_EXCEPTION(jacobians.explicitEuler(model, data, q, short_v, v, 0.01), InvalidArgument, names("v"));
  BOOST_CHECK_EXCEPTION(jacobians.semiImplicitEuler(model, data, q, v, short_v, 0.01), InvalidArgument, names("tau"));
  BOOST_CHECK_EXCEPTION(jacobians.rungeKutta4(model, data, q, v, v, 0.0), InvalidArgument, names("h"));
  // A workspace built for another model.
  const Model other = randomTree({2, false, false, false, false}, rng);
  Data other_data(other);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(other.nv());
  BOOST_CHECK_THROW(jacobians.rungeKutta4(other, other_data, neutral(other), zero, zero, 0.01), InvalidArgument);
}
