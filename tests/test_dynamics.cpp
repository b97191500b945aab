#define BOOST_TEST_MODULE dynamics
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <limits>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

#include "abdyn/algorithms/aba.hpp"
#include "abdyn/algorithms/crba.hpp"
#include "abdyn/algorithms/forward_dynamics_crba.hpp"
#include "abdyn/algorithms/rnea.hpp"
#include "abdyn/checked_mode.hpp"
#include "abdyn/constraints/constrained_dynamics.hpp"
#include "abdyn/error.hpp"
#include "abdyn/io/urdf.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/model_builder.hpp"
#include "abdyn/model/random_model.hpp"
#include "test_helpers.hpp"

using namespace abdyn;
using namespace abdyn::test;

namespace {

struct Case {
  std::string label;
  Model model;
};

// Random trees and chains of 1 to 200 bodies: revolute-only and all joint types, fixed and floating
// base, with and without damping and armature.
std::vector<Case> randomCases() {
  std::mt19937 rng(42);
  std::vector<Case> cases;
  for (int bodies : {1, 2, 5, 12, 30, 100, 200}) {
    for (bool chain : {false, true}) {
      for (bool floating : {false, true}) {
        for (bool all_types : {false, true}) {
          const RandomTreeOptions options{bodies, chain, floating, all_types, all_types};
          std::ostringstream label;
          label << (chain ? "chain " : "tree ") << bodies << (floating ? " floating" : " fixed")
                << (all_types ? " all joint types, damping, armature" : " revolute");
          cases.push_back({label.str(), randomTree(options, rng)});
        }
      }
    }
  }
  return cases;
}

std::vector<Force> randomForces(const Model& model, std::mt19937& rng) {
  std::vector<Force> f(model.nbodies());
  for (int i = 1; i < model.nbodies(); ++i) f[i] = Force(randomVector6(rng, 5.0));
  return f;
}

int statesFor(const Model& model) { return model.nv() > 150 ? 10 : 50; }

}  // namespace

// Relative errors are in the Euclidean norm of the whole vector (Frobenius for matrices),
// ||x - x_ref|| / ||x_ref||. Tolerance 1e-10 for the well-conditioned comparisons of the issue; the
// worst figure measured is reported in the log.
BOOST_AUTO_TEST_CASE(aba_crba_rnea_agree_on_random_trees) {
  std::mt19937 rng(7);
  double worst_fd = 0.0, worst_id = 0.0, worst_inv = 0.0;
  for (const Case& c : randomCases()) {
    const Model& model = c.model;
    Data data(model);
    Data data2(model);
    for (int s = 0; s < statesFor(model); ++s) {
      const Eigen::VectorXd q = randomConfiguration(model, rng);
      const Eigen::VectorXd v = randomVector(model.nv(), rng);
      const Eigen::VectorXd tau = randomVector(model.nv(), rng, 10.0);
      const Eigen::VectorXd qdd = forwardDynamics(model, data, q, v, tau);
      const Eigen::VectorXd qdd_crba = forwardDynamicsCrba(model, data2, q, v, tau);
      const double e_fd = relErr(qdd, qdd_crba);
      const double e_id = relErr(inverseDynamics(model, data2, q, v, qdd), tau);
      BOOST_TEST(e_fd <= 1e-10, c.label << " state " << s << ": ABA vs CRBA " << e_fd);
      BOOST_TEST(e_id <= 1e-10, c.label << " state " << s << ": RNEA(ABA(tau)) vs tau " << e_id);
      worst_fd = std::max(worst_fd, e_fd);
      worst_id = std::max(worst_id, e_id);
      if (s < 3) {
        // External forces take the same path through all three algorithms.
        const std::vector<Force> f_ext = randomForces(model, rng);
        const Eigen::VectorXd qdd_f = forwardDynamics(model, data, q, v, tau, f_ext);
        ABDYN_CHECK_REL(forwardDynamicsCrba(model, data2, q, v, tau, f_ext), qdd_f, 1e-10);
        ABDYN_CHECK_REL(inverseDynamics(model, data2, q, v, qdd_f, f_ext), tau, 1e-10);
        // M: symmetric, positive definite, and column k equals RNEA(q, 0, e_k) - RNEA(q, 0, 0).
        const Eigen::MatrixXd M = massMatrix(model, data, q);
        BOOST_TEST((M - M.transpose()).norm() == 0.0);
        BOOST_TEST(Eigen::LLT<Eigen::MatrixXd>(M).info() == Eigen::Success);
        const Eigen::VectorXd zero = Eigen::VectorXd::Zero(model.nv());
        const Eigen::VectorXd g = inverseDynamics(model, data2, q, zero, zero);
        ABDYN_CHECK_REL(gravityTorques(model, data2, q), g, 1e-14);
        for (int k = 0; k < model.nv(); k += std::max(1, model.nv() / 10)) {
          const Eigen::VectorXd column = inverseDynamics(model, data2, q, zero, Eigen::VectorXd::Unit(model.nv(), k)) - g;
          BOOST_TEST((M.col(k) - column).norm() <= 1e-10 * (1.0 + M.col(k).norm()), c.label << " column " << k);
        }
        // M^-1 from the articulated recursion, against the identity. The residual is bounded by the
        // conditioning: 1e-10 while cond(M) < 1e6; the 200-body chains with prismatic joints and armature
        // reach cond(M) ~ 1e7, where the bound is 1e-16 cond(M) (measured: 1.6e-10 at cond 1.3e7, four
        // times better than inverting M by a dense Cholesky factorisation).
        const Eigen::MatrixXd Minv = inverseMassMatrix(model, data, q);
        const double e_inv = (Minv * M - Eigen::MatrixXd::Identity(model.nv(), model.nv())).norm() /
                             std::sqrt(static_cast<double>(model.nv()));
        const Eigen::VectorXd eig = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(M, Eigen::EigenvaluesOnly).eigenvalues();
        const double cond = eig.maxCoeff() / eig.minCoeff();
        BOOST_TEST(e_inv <= std::max(1e-10, 1e-16 * cond), c.label << ": |M^-1 M - 1| / sqrt(n) = " << e_inv << ", cond " << cond);
        worst_inv = std::max(worst_inv, e_inv);
        // The sparse factor solves M x = b.
        Eigen::VectorXd x = tau;
        factorizeMassMatrix(model, data);
        solveMassMatrix(model, data, x);
        ABDYN_CHECK_REL((M * x).eval(), tau, 1e-10);
        // nonlinearEffects is RNEA at qdd = 0.
        ABDYN_CHECK_REL(nonlinearEffects(model, data, q, v), inverseDynamics(model, data2, q, v, zero), 1e-14);
      }
    }
  }
  BOOST_TEST_MESSAGE("worst relative errors: ABA vs CRBA " << worst_fd << ", RNEA(ABA) vs tau " << worst_id
                                                           << ", M^-1 M vs 1 " << worst_inv);
}

// The algorithms replace their products with S by picks where Joint::axis_column says S = axis_sign e_k:
// that must hold for every joint that claims it (the fast-path types about +e_k, revolute and prismatic
// joints about -e_k), and no other joint may claim it. (The algorithms' agreement on random trees, where
// one axis in three is a coordinate axis, checks the positive picks; the test below the negative ones.)
BOOST_AUTO_TEST_CASE(axis_column_is_the_signed_unit_column_of_s) {
  const JointType types[] = {JointType::RevoluteX, JointType::RevoluteY,  JointType::RevoluteZ, JointType::Revolute,
                             JointType::PrismaticX, JointType::PrismaticY, JointType::PrismaticZ, JointType::Prismatic,
                             JointType::Helical,    JointType::Spherical,  JointType::Planar,     JointType::Floating};
  int picks = 0, negative_picks = 0;
  for (JointType type : types) {
    const bool any_axis = type == JointType::Revolute || type == JointType::Prismatic || type == JointType::Helical;
    const int a = (type == JointType::RevoluteX || type == JointType::PrismaticX)   ? 0
                  : (type == JointType::RevoluteY || type == JointType::PrismaticY) ? 1
                                                                                    : 2;
    const std::vector<Vector3> axes = any_axis ? std::vector<Vector3>{Vector3(0.6, 0.0, 0.8), -Vector3::UnitX(),
                                                                      -Vector3::UnitY(), -Vector3::UnitZ()}
                                               : std::vector<Vector3>{Vector3::Unit(a)};
    for (const Vector3& axis : axes) {
      Joint j;
      j.type = type;
      jointSizes(type, j.nq, j.nv);
      j.axis = axis;
      j.pitch = 0.1;
      j.setAxisPick();
      const Matrix6X S = j.motionSubspace();
      if (j.axis_column >= 0) {
        ++picks;
        if (j.axis_sign < 0.0) ++negative_picks;
        BOOST_TEST((j.axis_sign == 1.0 || j.axis_sign == -1.0), type);
        BOOST_TEST(S.cols() == 1, type);
        BOOST_TEST((S.col(0) == Vector6(j.axis_sign * Vector6::Unit(j.axis_column))), type);
      } else {
        BOOST_TEST(!(S.cols() == 1 && (S.col(0).array() == 0.0).count() == 5 && S.col(0).cwiseAbs().sum() == 1.0),
                   type << " axis " << axis.transpose());
      }
    }
  }
  BOOST_TEST(picks == 12);
  BOOST_TEST(negative_picks == 6);
}

// Revolute and prismatic joints about -e_k pick with a sign. A joint about -e_k at q is the joint about +e_k
// at -q, so with F = diag(+-1) flipping those coordinates (q, v, qdd and tau alike, as tau is power-conjugate
// to v), the model with negative axes must give ABA: qdd = F ABA+(F q, F v, F tau), RNEA: tau = F RNEA+(F q,
// F v, F qdd) and CRBA: M = F M+ F, where + is the same model with every axis positive (the fast-path types).
// A third model replaces each revolute joint about -e_k by a helical one of pitch 0 about -e_k, the same
// joint without a pick (general S products, general transform). Random trees of 12 bodies, fixed seed;
// tolerance 1e-12 relative (the three sides differ by the order of a few roundings).
BOOST_AUTO_TEST_CASE(negative_axis_picks_match_the_flipped_and_the_general_path) {
  std::mt19937 rng(19);
  std::uniform_int_distribution<int> coin(0, 1), column(0, 2);
  std::uniform_real_distribution<double> mass(0.5, 2.0);
  for (int trial = 0; trial < 5; ++trial) {
    ModelBuilder negative("negative"), positive("positive"), general("general");
    const int bodies = 12;
    Eigen::VectorXd F(bodies);
    for (int i = 1; i <= bodies; ++i) {
      const int parent = std::uniform_int_distribution<int>(0, i - 1)(rng);
      const bool revolute = coin(rng) == 1;
      const Vector3 e = Vector3::Unit(column(rng));
      F[i - 1] = coin(rng) == 1 ? -1.0 : 1.0;
      const Plx X_tree(randomRotation(rng), randomVector3(rng, 0.5));
      const RigidBodyInertia I(mass(rng), randomVector3(rng, 0.2), randomInertiaAboutCom(rng, 0.1));
      JointSpec spec;
      spec.type = revolute ? JointType::Revolute : JointType::Prismatic;
      spec.axis = F[i - 1] * e;
      const std::string name = "b" + std::to_string(i);
      negative.addBody(parent, spec, X_tree, I, name);
      if (revolute && F[i - 1] < 0.0) spec.type = JointType::Helical;
      general.addBody(parent, spec, X_tree, I, name);
      spec.type = revolute ? JointType::Revolute : JointType::Prismatic;
      spec.axis = e;
      positive.addBody(parent, spec, X_tree, I, name);
    }
    const Model model = negative.build(), model_pos = positive.build(), model_gen = general.build();
    BOOST_TEST(model.nv() == bodies);
    Data data(model), data_pos(model_pos), data_gen(model_gen);
    const Eigen::VectorXd q = randomVector(bodies, rng, 3.0), v = randomVector(bodies, rng, 2.0);
    const Eigen::VectorXd tau = randomVector(bodies, rng, 10.0), qdd = randomVector(bodies, rng, 5.0);
    const auto flip = [&F](const Eigen::VectorXd& x) { return Eigen::VectorXd(F.cwiseProduct(x)); };
    const Eigen::VectorXd qdd_aba = forwardDynamics(model, data, q, v, tau);
    ABDYN_CHECK_REL(qdd_aba, flip(forwardDynamics(model_pos, data_pos, flip(q), flip(v), flip(tau))), 1e-12);
    ABDYN_CHECK_REL(qdd_aba, forwardDynamics(model_gen, data_gen, q, v, tau), 1e-12);
    const Eigen::VectorXd tau_rnea = inverseDynamics(model, data, q, v, qdd);
    ABDYN_CHECK_REL(tau_rnea, flip(inverseDynamics(model_pos, data_pos, flip(q), flip(v), flip(qdd))), 1e-12);
    ABDYN_CHECK_REL(tau_rnea, inverseDynamics(model_gen, data_gen, q, v, qdd), 1e-12);
    const Eigen::MatrixXd M = massMatrix(model, data, q);
    ABDYN_CHECK_REL(M, Eigen::MatrixXd(F.asDiagonal() * massMatrix(model_pos, data_pos, flip(q)) * F.asDiagonal()), 1e-12);
    ABDYN_CHECK_REL(M, massMatrix(model_gen, data_gen, q), 1e-12);
    // The row response and M^-1 run the same articulated step.
    ABDYN_CHECK_REL(inverseMassMatrix(model, data, q), inverseMassMatrix(model_gen, data_gen, q), 1e-12);
  }
}

// CRBA adds composite inertias in the centre-of-mass form with one reciprocal of the joint mass. Links
// without mass (URDF's frame-only links, or a rotor given only its rotational inertia) take the
// zero-mass branch when both sides of a sum have none.
// Reference: column k of M is RNEA(q, 0, e_k) - RNEA(q, 0, 0), an independent recursion; 1e-12 relative,
// the rounding of a 7-body chain.
BOOST_AUTO_TEST_CASE(crba_with_massless_links_matches_rnea_columns) {
  std::mt19937 rng(23);
  ModelBuilder builder("massless_links");
  JointSpec hinge;
  hinge.axis = Vector3::UnitX();
  JointSpec slider;
  slider.type = JointType::Prismatic;
  slider.axis = Vector3::UnitZ();
  JointSpec tilted;
  tilted.axis = Vector3(1.0, 2.0, -0.5).normalized();
  const RigidBodyInertia massless;
  const RigidBodyInertia rotor(0.0, Vector3::Zero(), 0.01 * Matrix3::Identity());
  const auto heavy = [&rng] { return RigidBodyInertia(1.5, randomVector3(rng, 0.2), randomInertiaAboutCom(rng, 0.1)); };
  const auto placement = [&rng] { return Plx(randomRotation(rng), randomVector3(rng, 0.5)); };
  hinge.name = "j1";
  const int b1 = builder.addBody(0, hinge, placement(), massless, "b1");
  tilted.name = "j2";
  const int b2 = builder.addBody(b1, tilted, placement(), heavy(), "b2");
  hinge.name = "j3";
  builder.addBody(b1, hinge, placement(), rotor, "b3");  // a massless leaf added to a massless parent
  slider.name = "j4";
  const int b4 = builder.addBody(b2, slider, placement(), massless, "b4");
  hinge.name = "j5";
  builder.addBody(b4, hinge, placement(), heavy(), "b5");
  tilted.name = "j6";
  builder.addBody(b4, tilted, placement(), rotor, "b6");
  const Model model = builder.build();
  Data data(model), data2(model);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(model.nv());
  for (int s = 0; s < 5; ++s) {
    const Eigen::VectorXd q = randomVector(model.nv(), rng, 3.0);
    const Eigen::MatrixXd M = massMatrix(model, data, q, DynamicsOptions{false, false});
    BOOST_TEST((M - M.transpose()).norm() == 0.0);
    const Eigen::VectorXd g = inverseDynamics(model, data2, q, zero, zero, DynamicsOptions{false, false});
    for (int k = 0; k < model.nv(); ++k) {
      const Eigen::VectorXd unit = Eigen::VectorXd::Unit(model.nv(), k);
      const Eigen::VectorXd column = inverseDynamics(model, data2, q, zero, unit, DynamicsOptions{false, false}) - g;
      ABDYN_CHECK_REL(Eigen::VectorXd(M.col(k)), column, 1e-12);
    }
  }
}

namespace {

// A random tree and a state drawn after it from the same generator: q, then v and tau uniform in [-1, 1].
struct RandomTreeState {
  RandomTreeState(const RandomTreeOptions& options, std::mt19937& rng)
      : model(randomTree(options, rng)),
        q(randomConfiguration(model, rng)),
        v(randomVector(model.nv(), rng)),
        tau(randomVector(model.nv(), rng)) {}
  Model model;
  Eigen::VectorXd q, v, tau;
};

}  // namespace

// Options: without armature and damping the algorithms still agree with each other; and the
// terms do what they say: damping subtracts damping .* v, armature adds to M's diagonal.
BOOST_AUTO_TEST_CASE(armature_and_damping_options) {
  std::mt19937 rng(8);
  const RandomTreeState state({10, false, true, true, true}, rng);
  const auto& [model, q, v, tau] = state;
  Data data(model);
  for (bool armature : {false, true}) {
    for (bool damping : {false, true}) {
      const DynamicsOptions options{armature, damping};
      const Eigen::VectorXd qdd = forwardDynamics(model, data, q, v, tau, options);
      ABDYN_CHECK_REL(inverseDynamics(model, data, q, v, qdd, options), tau, 1e-11);
      ABDYN_CHECK_REL(forwardDynamicsCrba(model, data, q, v, tau, options), qdd, 1e-11);
    }
  }
  const Eigen::VectorXd qdd = randomVector(model.nv(), rng);
  const Eigen::VectorXd bare = inverseDynamics(model, data, q, v, qdd, DynamicsOptions{false, false});
  const Eigen::VectorXd full = inverseDynamics(model, data, q, v, qdd, DynamicsOptions{true, true});
  // A floating joint's armature a is the inertia a 1 carried at the child's origin, so its bias force
  // v x* (a v) = [0; a w x v] enters the linear rows too (MuJoCo's free-joint armature).
  Eigen::VectorXd armature_products = Eigen::VectorXd::Zero(model.nv());
  for (int i = 1; i < model.nbodies(); ++i) {
    const Joint& j = model.joint(i);
    if (j.type != JointType::Floating) continue;
    const Eigen::Vector3d w = v.segment<3>(j.idx_v), lin = v.segment<3>(j.idx_v + 3);
    armature_products.segment<3>(j.idx_v + 3) = model.armature()[j.idx_v + 3] * w.cross(lin);
  }
  ABDYN_CHECK_REL(full, (bare + model.armature().cwiseProduct(qdd) + armature_products + model.damping().cwiseProduct(v)).eval(),
                  1e-13);
  const Eigen::MatrixXd M0 = massMatrix(model, data, q, DynamicsOptions{false, false});
  const Eigen::MatrixXd M1 = massMatrix(model, data, q);
  ABDYN_CHECK_REL(Eigen::MatrixXd(M1 - M0), Eigen::MatrixXd(model.armature().asDiagonal()), 1e-12);
}

// Repeated calls on the same Data give the same result bit for bit (no state leaks between calls).
BOOST_AUTO_TEST_CASE(repeated_calls_are_identical) {
  std::mt19937 rng(9);
  const RandomTreeState state({20, false, true, true, true}, rng);
  const auto& [model, q, v, tau] = state;
  Data data(model);
  const Eigen::VectorXd first = forwardDynamics(model, data, q, v, tau);
  inverseMassMatrix(model, data, randomConfiguration(model, rng));
  massMatrix(model, data, randomConfiguration(model, rng));
  BOOST_TEST((forwardDynamics(model, data, q, v, tau) - first).norm() == 0.0);
}

BOOST_AUTO_TEST_CASE(bad_sizes_are_named) {
  std::mt19937 rng(10);
  const Model model = randomTree({3, true, false, false}, rng);
  Data data(model);
  const Eigen::VectorXd q = neutral(model), v = Eigen::VectorXd::Zero(3), bad = Eigen::VectorXd::Zero(2);
  const auto names = [](const char* argument) {
    return [argument](const InvalidArgument& e) {
      return std::string(e.what()).find(std::string("'") + argument + "' has size 2, expected 3") != std::string::npos;
    };
  };
  BOOST_CHECK_EXCEPTION(forwardDynamics(model, data, q, v, bad), InvalidArgument, names("tau"));
  BOOST_CHECK_EXCEPTION(forwardDynamics(model, data, q, bad, v), InvalidArgument, names("v"));
  BOOST_CHECK_EXCEPTION(forwardDynamics(model, data, bad, v, v), InvalidArgument, names("q"));
  BOOST_CHECK_EXCEPTION(inverseDynamics(model, data, q, v, bad), InvalidArgument, names("qdd"));
  BOOST_CHECK_EXCEPTION(massMatrix(model, data, bad), InvalidArgument, names("q"));
  BOOST_CHECK_EXCEPTION(forwardDynamicsCrba(model, data, q, v, bad), InvalidArgument, names("tau"));
  BOOST_CHECK_EXCEPTION(inverseMassMatrix(model, data, bad), InvalidArgument, names("q"));
  BOOST_CHECK_THROW(forwardDynamics(model, data, q, v, v, std::vector<Force>(2)), InvalidArgument);
}

// Checked mode: every dynamics entry point rejects a NaN or infinite entry in any argument and a
// non-unit quaternion in q, naming the argument; with checked mode off the same calls go through.
BOOST_AUTO_TEST_CASE(checked_mode_rejects_non_finite_and_non_unit_quaternions) {
  std::mt19937 rng(12);
  const Model model = randomTree({4, true, true, false}, rng);  // floating base: q[3..6] is a quaternion
  Data data(model);
  const Eigen::VectorXd q = randomConfiguration(model, rng), v = randomVector(model.nv(), rng);
  const Eigen::VectorXd tau = randomVector(model.nv(), rng);
  const auto says = [](std::string fragment) {
    return [fragment](const InvalidArgument& e) { return std::string(e.what()).find(fragment) != std::string::npos; };
  };
  const bool saved = checkedMode();
  setCheckedMode(true);
  Eigen::VectorXd q_bad = q;
  q_bad.segment<4>(3) *= 1.01;
  BOOST_CHECK_EXCEPTION(forwardDynamics(model, data, q_bad, v, tau), InvalidArgument, says("quaternion"));
  BOOST_CHECK_EXCEPTION(inverseDynamics(model, data, q_bad, v, tau), InvalidArgument, says("quaternion"));
  BOOST_CHECK_EXCEPTION(massMatrix(model, data, q_bad), InvalidArgument, says("quaternion"));
  BOOST_CHECK_EXCEPTION(forwardDynamicsCrba(model, data, q_bad, v, tau), InvalidArgument, says("quaternion"));
  Eigen::VectorXd v_nan = v, tau_inf = tau;
  v_nan[2] = std::nan("");
  tau_inf[model.nv() - 1] = std::numeric_limits<double>::infinity();
  BOOST_CHECK_EXCEPTION(forwardDynamics(model, data, q, v_nan, tau), InvalidArgument, says("'v'"));
  BOOST_CHECK_EXCEPTION(forwardDynamics(model, data, q, v, tau_inf), InvalidArgument, says("'tau'"));
  BOOST_CHECK_EXCEPTION(inverseDynamics(model, data, q, v, tau_inf), InvalidArgument, says("'qdd'"));
  BOOST_CHECK_EXCEPTION(nonlinearEffects(model, data, q, v_nan), InvalidArgument, says("'v'"));
  BOOST_CHECK_EXCEPTION(forwardDynamicsCrba(model, data, q, v, tau_inf), InvalidArgument, says("'tau'"));
  setCheckedMode(false);
  BOOST_CHECK_NO_THROW(forwardDynamics(model, data, q_bad, v, tau));
  setCheckedMode(saved);
}

// Every bundled model, fixed and floating base, 50 random states: ABA against the CRBA path and
// RNEA(ABA(tau)) against tau, 1e-10 relative (Euclidean norm).
BOOST_AUTO_TEST_CASE(aba_crba_rnea_agree_on_bundled_models) {
  std::mt19937 rng(11);
  int models = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(ABDYN_SOURCE_DIR) + "/models")) {
    if (entry.path().extension() != ".urdf") continue;
    bool declares_floating_joint = false;  // delta_robot, humanoid_welded: a floating joint from 'world'
    for (bool floating : {false, true}) {
      // A file whose root is 'world' with its own floating joint has its floating variant already; the
      // loader refuses floating_base for it.
      if (floating && declares_floating_joint) continue;
      UrdfOptions options;
      options.floating_base = floating;
      const std::string stem = entry.path().stem().string();
      if (floating && (stem == "pendulum" || stem == "double_pendulum" || stem == "cartpole")) {
        // A massless floating root carrying one body on a one-DoF joint (the pendulums' and the
        // cart-pole's fixed bases set free) duplicates that joint's motion: M is singular, and the loader
        // gives a kinematic model (test_urdf.cpp). singular_mass_matrix_is_refused builds such a tree by hand.
        BOOST_TEST(!loadUrdf(entry.path().string(), options).hasDynamics());
        continue;
      }
      const Model model = loadUrdf(entry.path().string(), options);
      for (int i = 1; i < model.nbodies(); ++i) declares_floating_joint |= model.joint(i).type == JointType::Floating;
      Data a(model), b(model);
      for (int s = 0; s < 50; ++s) {
        const Eigen::VectorXd q = randomConfiguration(model, rng);
        const Eigen::VectorXd v = randomVector(model.nv(), rng);
        const Eigen::VectorXd tau = randomVector(model.nv(), rng, 10.0);
        const Eigen::VectorXd qdd = forwardDynamics(model, a, q, v, tau);
        BOOST_TEST(relErr(forwardDynamicsCrba(model, b, q, v, tau), qdd) <= 1e-10, entry.path().filename() << " state " << s);
        BOOST_TEST(relErr(inverseDynamics(model, b, q, v, qdd), tau) <= 1e-10, entry.path().filename() << " state " << s);
      }
      ++models;
    }
  }
  BOOST_TEST(models >= 8);
}

// A massless free body carrying a pendulum: the free joint can turn the pendulum about its hinge at no
// cost, so M is singular (rank nv - 1). The algorithms must say so rather than return NaN.
BOOST_AUTO_TEST_CASE(singular_mass_matrix_is_refused) {
  ModelBuilder builder("free_pendulum");
  JointSpec free;
  free.type = JointType::Floating;
  free.name = "root_joint";
  const int base = builder.addBody(0, free, Plx(), RigidBodyInertia(), "base");
  JointSpec hinge;
  hinge.axis = Vector3::UnitY();
  hinge.name = "hinge";
  builder.addBody(base, hinge, Plx(), RigidBodyInertia(1.0, Vector3(0, 0, -1), 0.01 * Matrix3::Identity()), "pole");
  const Model model = builder.build();
  Data d(model);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(model.nv());
  BOOST_CHECK_THROW(forwardDynamics(model, d, neutral(model), zero, zero), Error);
  BOOST_CHECK_THROW(forwardDynamicsCrba(model, d, neutral(model), zero, zero), Error);
  // Reached through the constrained call's articulated solver, the error names that call.
  const ConstraintSet none;
  ConstrainedDynamicsData cd(model, none);
  ConstrainedDynamicsSettings settings;
  settings.solver = ConstrainedSolver::Articulated;
  BOOST_CHECK_EXCEPTION(forwardDynamicsConstrained(model, d, cd, none, neutral(model), zero, zero, settings), Error,
                        [](const Error& e) {
                          const std::string what = e.what();
                          return what.rfind("abdyn::forwardDynamicsConstrained: joint 'root_joint'", 0) == 0 &&
                                 what.find("singular") != std::string::npos;
                        });
}
