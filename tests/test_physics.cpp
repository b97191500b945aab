#define BOOST_TEST_MODULE physics
#include <boost/test/unit_test.hpp>

#include "abdyn/algorithms/aba.hpp"
#include "abdyn/algorithms/center_of_mass.hpp"
#include "abdyn/integrators/runge_kutta4.hpp"
#include "abdyn/io/urdf.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/model_builder.hpp"
#include "abdyn/model/random_model.hpp"
#include "test_helpers.hpp"

using namespace abdyn;
using namespace abdyn::test;

namespace {

// Complete elliptic integral of the first kind K(k) = pi / (2 AGM(1, sqrt(1 - k^2))).
double ellipticK(double k) {
  double a = 1.0, b = std::sqrt(1.0 - k * k);
  for (int it = 0; it < 40; ++it) {
    const double an = 0.5 * (a + b);
    b = std::sqrt(a * b);
    a = an;
  }
  return M_PI / (2.0 * a);
}

double totalEnergy(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  return kineticEnergy(model, data, q, v) + potentialEnergy(model, data, q);
}

}  // namespace

// Large-amplitude period: T = 4 sqrt(I_axis / (m g d)) K(sin(theta0 / 2)). RK4 at 1 kHz; the
// downward zero crossings are located by one Newton step (theta is nearly linear there since
// theta'' ~ sin(theta) vanishes), so the measured period is good to ~1e-9 s: tolerance 1e-7 relative.
BOOST_AUTO_TEST_CASE(pendulum_period_matches_elliptic_integral) {
  const Model model = pendulum();
  Data data(model);
  RungeKutta4 rk(model);
  const double theta0 = 2.5, h = 1e-3, g = 9.81;
  const double I_axis = 0.4 * 0.05 * 0.05 + 1.0;
  const double expected = 4.0 * std::sqrt(I_axis / (1.0 * g * 1.0)) * ellipticK(std::sin(theta0 / 2.0));
  Eigen::VectorXd q(1), v(1);
  q << theta0;
  v << 0.0;
  const Eigen::VectorXd tau = Eigen::VectorXd::Zero(1);
  std::vector<double> crossings;
  double t = 0.0;
  while (crossings.size() < 3 && t < 20.0) {
    const double before = q[0];
    rk.step(model, data, q, v, tau, h);
    t += h;
    if (before > 0.0 && q[0] <= 0.0) crossings.push_back(t - q[0] / v[0]);
  }
  BOOST_REQUIRE(crossings.size() == 3);
  const double measured = 0.5 * (crossings[2] - crossings[0]);
  BOOST_TEST(std::abs(measured - expected) / expected < 1e-7, "period " << measured << " s, expected " << expected << " s");
}

// Energy of the free double pendulum over 10 s with RK4 at 1 kHz: conserved to 1e-6 relative.
BOOST_AUTO_TEST_CASE(double_pendulum_energy_is_conserved) {
  ModelBuilder b("double_pendulum");
  JointSpec joint;
  joint.axis = Vector3::UnitY();
  const RigidBodyInertia rod(1.0, Vector3(0, 0, -0.5), Vector3(1.0 / 12, 1.0 / 12, 1e-4).asDiagonal());
  const int l1 = b.addBody(0, joint, Plx(), rod, "link1");
  joint.name = "joint2";
  b.addBody(l1, joint, Plx::translation(Vector3(0, 0, -1.0)), rod, "link2");
  const Model model = b.build();
  Data data(model);
  RungeKutta4 rk(model);
  Eigen::VectorXd q(2), v(2);
  q << 2.0, -1.0;
  v << 1.0, 3.0;
  const Eigen::VectorXd tau = Eigen::VectorXd::Zero(2);
  const double E0 = totalEnergy(model, data, q, v);
  double worst = 0.0;
  for (int k = 0; k < 10000; ++k) {
    rk.step(model, data, q, v, tau, 1e-3);
    worst = std::max(worst, std::abs(totalEnergy(model, data, q, v) - E0) / std::abs(E0));
  }
  BOOST_TEST_MESSAGE("double pendulum: worst relative energy error over 10 s " << worst);
  BOOST_TEST(worst < 1e-6);
}

// A floating random tree in zero gravity: spatial momentum is conserved to 1e-9 relative and energy
// to 1e-6 over 2 s at 1 kHz (all joint types, so quaternion joints are integrated on the manifold).
BOOST_AUTO_TEST_CASE(floating_tree_conserves_momentum_without_gravity) {
  std::mt19937 rng(3);
  const Model model = randomTree({12, false, true, true, false}, rng).withGravity(Vector3::Zero());
  Data data(model);
  RungeKutta4 rk(model);
  Eigen::VectorXd q = randomConfiguration(model, rng);
  Eigen::VectorXd v = Eigen::VectorXd::Random(model.nv());
  const Eigen::VectorXd tau = Eigen::VectorXd::Zero(model.nv());
  const Force h0 = spatialMomentum(model, data, q, v);
  const double E0 = kineticEnergy(model, data, q, v);
  double worst_h = 0.0, worst_E = 0.0;
  for (int k = 0; k < 2000; ++k) {
    rk.step(model, data, q, v, tau, 1e-3);
    worst_h = std::max(worst_h, relErr(spatialMomentum(model, data, q, v).vector(), h0.vector()));
    worst_E = std::max(worst_E, std::abs(kineticEnergy(model, data, q, v) - E0) / E0);
  }
  BOOST_TEST_MESSAGE("floating tree: worst momentum error " << worst_h << ", energy error " << worst_E);
  BOOST_TEST(worst_h < 1e-9);
  BOOST_TEST(worst_E < 1e-6);
}

// RK4 on the manifold is fourth order: the end state of a 1 s run of a floating tree (with a
// spherical joint) against a run with h / 16 as reference; halving h divides the error by ~16.
BOOST_AUTO_TEST_CASE(runge_kutta4_converges_with_order_four) {
  std::mt19937 rng(4);
  const Model model = randomTree({5, true, true, true, false}, rng);
  Data data(model);
  RungeKutta4 rk(model);
  const Eigen::VectorXd q0 = randomConfiguration(model, rng);
  const Eigen::VectorXd v0 = Eigen::VectorXd::Random(model.nv());
  const Eigen::VectorXd tau = Eigen::VectorXd::Zero(model.nv());
  const auto run = [&](int steps) {
    Eigen::VectorXd q = q0, v = v0;
    for (int k = 0; k < steps; ++k) rk.step(model, data, q, v, tau, 0.5 / steps);
    Eigen::VectorXd state(model.nv() * 2);
    state << difference(model, q0, q), v;
    return state;
  };
  const Eigen::VectorXd reference = run(1600);
  const double e1 = (run(25) - reference).norm(), e2 = (run(50) - reference).norm(), e3 = (run(100) - reference).norm();
  const double order1 = std::log2(e1 / e2), order2 = std::log2(e2 / e3);
  BOOST_TEST_MESSAGE("RK4 errors " << e1 << " " << e2 << " " << e3 << ", observed orders " << order1 << " " << order2);
  BOOST_TEST(order1 > 3.7);
  BOOST_TEST(order2 > 3.7);
}

namespace {
Model floatingHumanoid() {
  UrdfOptions options;
  options.floating_base = true;
  return loadUrdf(std::string(ABDYN_SOURCE_DIR) + "/models/humanoid.urdf", options);
}
}  // namespace

// The bundled humanoid, floating, started moving (joint damping off so energy is conserved): total
// energy over 10 s of RK4 at 1 kHz to 1e-6 relative to |E0| + T0 (E0 alone can be near zero).
BOOST_AUTO_TEST_CASE(floating_humanoid_conserves_energy) {
  const Model model = floatingHumanoid();
  Data data(model);
  RungeKutta4 rk(model);
  std::mt19937 rng(21);
  Eigen::VectorXd q = neutral(model);
  Eigen::VectorXd v = 0.5 * Eigen::VectorXd::Random(model.nv());
  const Eigen::VectorXd tau = Eigen::VectorXd::Zero(model.nv());
  const DynamicsOptions undamped{true, false};
  const double E0 = totalEnergy(model, data, q, v);
  const double scale = std::abs(E0) + kineticEnergy(model, data, q, v);
  double worst = 0.0;
  for (int k = 1; k <= 10000; ++k) {
    rk.step(model, data, q, v, tau, 1e-3, undamped);
    if (k % 10 == 0) worst = std::max(worst, std::abs(totalEnergy(model, data, q, v) - E0) / scale);
  }
  BOOST_TEST_MESSAGE("floating humanoid: worst relative energy error over 10 s " << worst);
  BOOST_TEST(worst < 1e-6);
}

// The same humanoid without gravity: spatial momentum conserved to 1e-9 relative over 2 s.
BOOST_AUTO_TEST_CASE(floating_humanoid_conserves_momentum_without_gravity) {
  const Model model = floatingHumanoid().withGravity(Vector3::Zero());
  Data data(model);
  RungeKutta4 rk(model);
  Eigen::VectorXd q = neutral(model);
  Eigen::VectorXd v = 0.5 * Eigen::VectorXd::Random(model.nv());
  const Eigen::VectorXd tau = Eigen::VectorXd::Zero(model.nv());
  const DynamicsOptions undamped{true, false};
  const Force h0 = spatialMomentum(model, data, q, v);
  double worst = 0.0;
  for (int k = 1; k <= 2000; ++k) {
    rk.step(model, data, q, v, tau, 1e-3, undamped);
    if (k % 10 == 0) worst = std::max(worst, relErr(spatialMomentum(model, data, q, v).vector(), h0.vector()));
  }
  BOOST_TEST_MESSAGE("floating humanoid: worst relative momentum error over 2 s " << worst);
  BOOST_TEST(worst < 1e-9);
}
