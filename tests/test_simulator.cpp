#define BOOST_TEST_MODULE simulator
#include <boost/test/unit_test.hpp>

#include "abdyn/algorithms/aba.hpp"
#include "abdyn/algorithms/kinematics.hpp"
#include "abdyn/integrators/simulator.hpp"
#include "abdyn/io/urdf.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/model_builder.hpp"
#include "test_helpers.hpp"

using namespace abdyn;
using namespace abdyn::test;

namespace {

constexpr double kG = 9.81;

// A 1 kg bob 1 m below a hinge about y (inertia 1e-3 about its centre), with position limits.
Model limitedPendulum(double lower, double upper) {
  ModelBuilder b("pendulum");
  JointSpec hinge;
  hinge.name = "hinge";
  hinge.axis = Vector3::UnitY();
  hinge.lower = lower;
  hinge.upper = upper;
  b.addBody(0, hinge, Plx(), RigidBodyInertia(1.0, Vector3(0, 0, -1.0), Matrix3::Identity() * 1e-3), "bob");
  return b.build();
}

// A floating box of mass m and edge lengths `size` whose collision box is itself.
Model floatingBox(const Vector3& size, double mass, const Vector3& gravity) {
  ModelBuilder b("box");
  b.setGravity(gravity);
  JointSpec free;
  free.type = JointType::Floating;
  free.name = "free";
  const Vector3 s2 = size.cwiseProduct(size);
  const Vector3 I = mass / 12.0 * Vector3(s2[1] + s2[2], s2[0] + s2[2], s2[0] + s2[1]);
  const int body = b.addBody(0, free, Plx(), RigidBodyInertia(mass, Vector3::Zero(), I.asDiagonal()), "box");
  Geometry g;
  g.name = "box_collision";
  g.link = "box";
  g.body = body;
  g.shape = ShapeType::Box;
  g.size = size;
  b.addGeometry(g);
  return b.build();
}

// Speed of the floating base: the norm of its linear velocity (v[3..5], body coordinates).
double baseSpeed(const Eigen::VectorXd& v) { return v.segment<3>(3).norm(); }

}  // namespace

// A pendulum driven by 5 N m into its upper limit 0.3 rad: it never passes the limit by more than the
// margin (1e-2 rad), and comes to rest on it with the limit's impulse per step balancing the drive and
// gravity: lambda / h = tau - m g d sin(q) (d = 1 m), to 1e-6 relative.
BOOST_AUTO_TEST_CASE(pendulum_rests_on_its_limit) {
  SimulatorSettings settings;
  settings.joint_limits = true;
  settings.limit_margin = 1e-2;
  settings.solver.tolerance = 1e-12;
  Simulator sim(limitedPendulum(-1.0, 0.3), settings);
  sim.tau[0] = 5.0;
  const double h = 1e-3;
  double highest = -1.0;
  for (int k = 0; k < 3000; ++k) {
    sim.step(h);
    highest = std::max(highest, sim.q[0]);
  }
  BOOST_TEST_MESSAGE("pendulum: highest angle " << highest << " rad against the limit 0.3, final rate " << sim.v[0]);
  BOOST_TEST(highest <= 0.3 + settings.limit_margin);
  BOOST_TEST(std::abs(sim.v[0]) < 1e-6);
  BOOST_REQUIRE_EQUAL(sim.rows().size(), 1);
  const double expected = 5.0 - kG * std::sin(sim.q[0]);
  BOOST_TEST(std::abs(sim.rows()[0].impulse / h - expected) < 1e-6 * expected);
}

// A wheel (0.5 kg m^2 about its z axis, gravity along it) under a motor with target 2 rad/s and maximum
// effort 3 N m: it accelerates at exactly 3 / 0.5 = 6 rad/s^2 until it reaches 2 rad/s and then holds it;
// the motor's impulse never exceeds 3 N m * h.
BOOST_AUTO_TEST_CASE(motor_reaches_its_target_within_its_effort) {
  ModelBuilder b("wheel");
  JointSpec axle;
  axle.name = "axle";
  b.addBody(0, axle, Plx(), RigidBodyInertia(1.0, Vector3::Zero(), Matrix3::Identity() * 0.5), "wheel");
  SimulatorSettings settings;
  settings.solver.tolerance = 1e-12;
  Simulator sim(b.build(), settings);
  sim.motors.push_back(JointMotor{0, 2.0, 3.0});
  const double h = 1e-3;
  double worst_rate = 0.0, worst_effort = 0.0;
  for (int k = 1; k <= 1000; ++k) {
    sim.step(h);
    worst_rate = std::max(worst_rate, std::abs(sim.v[0] - std::min(6.0 * k * h, 2.0)));
    worst_effort = std::max(worst_effort, std::abs(sim.rows()[0].impulse) / h);
  }
  BOOST_TEST_MESSAGE("motor: worst rate error " << worst_rate << " rad/s, largest effort " << worst_effort << " N m");
  BOOST_TEST(worst_rate < 1e-9);
  BOOST_TEST(worst_effort <= 3.0 * (1.0 + 1e-12));
  BOOST_TEST(std::abs(sim.v[0] - 2.0) < 1e-12);
}

// A 0.4 x 0.4 x 0.1 m box on a plane tilted by theta (gravity tilted instead, along +x down the slope).
// With tan(theta) < mu it sticks; otherwise it slides with a = g (sin(theta) - mu cos(theta)), measured
// from the velocity between t = 0.5 s and t = 1 s, within 1%.
BOOST_AUTO_TEST_CASE(box_on_incline_sticks_or_slides) {
  const auto run = [](double theta, double mu, double& displacement, double& acceleration) {
    const Vector3 g = kG * Vector3(std::sin(theta), 0.0, -std::cos(theta));
    SimulatorSettings settings;
    settings.ground = true;
    settings.contact.mu = mu;
    settings.solver.max_iterations = 200;
    settings.solver.tolerance = 1e-10;
    Simulator sim(floatingBox(Vector3(0.4, 0.4, 0.1), 1.0, g), settings);
    sim.q[2] = 0.05;
    const double h = 1e-3;
    double v_half = 0.0;
    for (int k = 1; k <= 1000; ++k) {
      sim.step(h);
      if (k == 500) v_half = sim.v[3];
    }
    displacement = sim.q[0];
    acceleration = (sim.v[3] - v_half) / 0.5;
  };
  double x = 0.0, a = 0.0;
  run(20.0 * M_PI / 180.0, 0.5, x, a);
  BOOST_TEST_MESSAGE("incline 20 deg, mu 0.5 (tan 0.364): displacement " << x << " m after 1 s");
  BOOST_TEST(std::abs(x) < 1e-4);
  for (double theta_deg : {25.0, 35.0}) {
    const double theta = theta_deg * M_PI / 180.0, mu = 0.3;
    run(theta, mu, x, a);
    const double expected = kG * (std::sin(theta) - mu * std::cos(theta));
    BOOST_TEST_MESSAGE("incline " << theta_deg << " deg, mu 0.3: acceleration " << a << " m/s^2, analytic " << expected);
    BOOST_TEST(std::abs(a - expected) < 0.01 * expected);
  }
}

// A box dropped from 0.5 m with a tilt onto the ground: after 2 s it rests (speed below 1e-3 m/s) and
// penetrates less than the contact margin.
BOOST_AUTO_TEST_CASE(dropped_box_comes_to_rest) {
  SimulatorSettings settings;
  settings.ground = true;
  settings.solver.max_iterations = 50;
  Simulator sim(floatingBox(Vector3(0.2, 0.3, 0.1), 2.0, Vector3(0, 0, -kG)), settings);
  sim.q[2] = 0.5;
  const Eigen::Vector3d axis = Eigen::Vector3d(1, 2, 0).normalized();
  const double angle = 0.4;
  sim.q.segment<4>(3) << std::cos(angle / 2), std::sin(angle / 2) * axis;
  double deepest = 0.0;
  for (int k = 0; k < 1000; ++k) {
    const StepStatistics& stats = sim.step(2e-3);
    deepest = std::max(deepest, stats.constraint_error);
  }
  BOOST_TEST_MESSAGE("dropped box: speed " << baseSpeed(sim.v) << " m/s, angular " << sim.v.head<3>().norm()
                                           << " rad/s after 2 s; deepest penetration " << deepest << " m");
  BOOST_TEST(baseSpeed(sim.v) < 1e-3);
  BOOST_TEST(sim.v.head<3>().norm() < 1e-2);
  BOOST_TEST(deepest < settings.contact.margin);
}
