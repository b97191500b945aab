#define BOOST_TEST_MODULE simulator
#include <boost/test/unit_test.hpp>

#include "abdyn/algorithms/aba.hpp"
#include "abdyn/algorithms/center_of_mass.hpp"
#include "abdyn/algorithms/jacobian.hpp"
#include "abdyn/algorithms/kinematics.hpp"
#include "abdyn/checked_mode.hpp"
#include "abdyn/constraints/row_contacts.hpp"
#include "abdyn/integrators/simulator.hpp"
#include "abdyn/io/urdf.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/model_builder.hpp"
#include "floating_box.hpp"
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

// A joint that starts far past its limit (many files' default poses lie outside their joints' ranges) comes
// back at limit_max_push_velocity, not at erp d / h: here 0.8 rad below its lower limit with erp 0.2 and
// h = 2 ms, which would be 80 rad/s. The bob hangs straight below the hinge at the start (no gravity torque), so
// the first step's rate is the limit row's target, the cap, exactly (to the solver's tolerance); the joint then
// reaches its range within the margin, never faster than the cap, and rests on the limit. An invalid cap is refused.
BOOST_AUTO_TEST_CASE(a_joint_far_past_its_limit_returns_at_the_capped_speed) {
  for (const double cap : {1.0, 0.25}) {
    SimulatorSettings settings;
    settings.joint_limits = true;
    settings.limit_max_push_velocity = cap;
    settings.solver.tolerance = 1e-14;
    Simulator sim(limitedPendulum(0.8, 1.2), settings);
    sim.q[0] = 0.0;  // 0.8 rad below the range
    sim.step(2e-3);
    BOOST_TEST_MESSAGE("cap " << cap << " rad/s: rate after the first step " << sim.v[0]);
    BOOST_TEST(std::abs(sim.v[0] - cap) < 1e-12);
    double fastest = 0.0;
    for (int k = 0; k < 3000; ++k) {
      sim.step(2e-3);
      fastest = std::max(fastest, std::abs(sim.v[0]));
    }
    BOOST_TEST(sim.q[0] >= 0.8 - settings.limit_margin);
    BOOST_TEST(fastest <= cap + 1e-9);
    BOOST_TEST(std::abs(sim.v[0]) < 1e-6);
  }
  Simulator bad(limitedPendulum(0.8, 1.2));
  bad.settings().joint_limits = true;
  for (const double cap : {0.0, -1.0, std::nan("")}) {
    bad.settings().limit_max_push_velocity = cap;
    BOOST_CHECK_THROW(bad.step(1e-3), InvalidArgument);
  }
  bad.settings().limit_max_push_velocity = 1.0;
  bad.settings().contact.max_push_velocity = 0.0;
  BOOST_CHECK_THROW(bad.step(1e-3), InvalidArgument);
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

// The humanoid as a ragdoll: floating, URDF limits as rows, ground contacts with its collision geometry,
// started 5 cm above the ground and tipping over. Over 3 s at 500 Hz: no NaN, total energy never increases
// after the first contact (by more than 1e-9 J per step), and it settles (joint speeds below 1e-3; with
// the joint damping taken implicitly, the default, it comes to rest at about 2.5 s, at 2 s without).
// ERP is off: the predicted-error targets keep contacts and limits from passing, and Baumgarte's push-out
// of residual penetration would itself add energy (with ERP 0.2 that work was up to 2e-7 J per step).
BOOST_AUTO_TEST_CASE(humanoid_ragdoll_falls_and_settles) {
  UrdfOptions options;
  options.floating_base = true;
  SimulatorSettings settings;
  settings.joint_limits = true;
  settings.ground = true;
  settings.solver.max_iterations = 200;
  settings.solver.tolerance = 1e-9;
  settings.erp = 0.0;
  settings.contact.erp = 0.0;
  Simulator sim(loadUrdf(std::string(ABDYN_SOURCE_DIR) + "/models/humanoid.urdf", options), settings);
  // Lift the neutral pose so that its lowest collision point is 5 cm above the ground.
  Data data(sim.model());
  forwardKinematics(sim.model(), data, sim.q);
  double lowest = HUGE_VAL;
  for (const Geometry& g : sim.model().geometries()) {
    if (g.role != GeometryRole::Collision || g.body == 0) continue;
    lowest = std::min(lowest, (g.X_geometry_body * data.X_body_world[g.body]).r().z() - g.size.maxCoeff());
  }
  sim.q[2] += 0.05 - lowest;
  sim.v.head<3>() << 0.8, 0.5, 0.2;  // angular velocity of the pelvis: tips it over
  double previous = 0.0, worst_increase = 0.0, max_iterations = 0;
  bool touched = false, finite = true;
  for (int k = 0; k < 1500; ++k) {
    const StepStatistics& stats = sim.step(2e-3);
    finite = finite && sim.q.allFinite() && sim.v.allFinite() && std::isfinite(stats.energy);
    if (touched) worst_increase = std::max(worst_increase, stats.energy - previous);
    touched = touched || stats.contacts > 0;
    previous = stats.energy;
    max_iterations = std::max<double>(max_iterations, stats.iterations);
  }
  BOOST_TEST_MESSAGE("ragdoll: largest energy increase after contact " << worst_increase << " J, final speed "
                     << sim.v.norm() << ", contacts " << sim.statistics().contacts << ", rows " << sim.statistics().rows
                     << ", most sweeps " << max_iterations);
  BOOST_TEST(finite);
  BOOST_TEST(touched);
  BOOST_TEST(worst_increase <= 1e-9);
  BOOST_TEST(sim.v.norm() < 1e-3);
}

namespace {

// 50 free rods (floating bodies), each hinged about world x to the previous one's end (the first to the
// world): rod i hangs along -z from (0, 0, -i length), its centre of mass half way down.
struct RodChain {
  static constexpr int links = 50;
  Model model;
  std::vector<RowJoint> hinges;

  RodChain() {
    const double length = 0.2;
    ModelBuilder b("rod_chain");
    JointSpec free;
    free.type = JointType::Floating;
    const Matrix3 x_as_z = (Matrix3() << 0, 0, -1, 0, 1, 0, 1, 0, 0).finished();  // E with E^T e_z = e_x
    for (int i = 0; i < links; ++i) {
      free.name = "free" + std::to_string(i);
      const int body = b.addBody(0, free, Plx::translation(Vector3(0, 0, -i * length)),
                                 RigidBodyInertia(1.0, Vector3(0, 0, -0.5 * length),
                                                  Vector3(1e-3, 1e-3, 1e-4).asDiagonal()),
                                 "rod" + std::to_string(i));
      // The hinge at the rod's top: on the rod at its origin, on the previous rod at its end.
      hinges.push_back(RowJoint{RowJointType::Hinge, body, body - 1, Plx::rotation(x_as_z),
                                Plx(x_as_z, body == 1 ? Vector3::Zero() : Vector3(0, 0, -length))});
    }
    model = b.build();
  }
};

// The row solver run from zero impulses (no warm start) to `tolerance` m/s or `max_iterations` sweeps.
SimulatorSettings solveFromZero(double tolerance, int max_iterations) {
  SimulatorSettings settings;
  settings.solver.tolerance = tolerance;
  settings.solver.max_iterations = max_iterations;
  settings.solver.warm_start = false;
  return settings;
}

}  // namespace

// SOR on the rod chain, in one step from rest under gravity, solved from zero impulses to the same
// residual 1e-5 m/s. Over-relaxation with omega in [1.2, 1.6] needs fewer sweeps than plain
// Gauss-Seidel. The hinge rows are all bilateral, which the bilateral block would solve in one sweep
// whatever omega, so the sweeps here go row by row (bilateral_block off).
BOOST_AUTO_TEST_CASE(sor_speeds_up_a_hinge_chain) {
  const RodChain chain;
  SimulatorSettings settings = solveFromZero(1e-5, 20000);
  settings.solver.bilateral_block = false;
  std::vector<std::pair<double, int>> counts;
  for (double omega : {1.0, 1.2, 1.4, 1.6}) {
    settings.solver.omega = omega;
    Simulator sim(chain.model, settings);
    sim.joints = chain.hinges;
    sim.v.setZero();
    const StepStatistics& stats = sim.step(1e-3);
    BOOST_TEST(stats.residual <= 1e-5);
    counts.emplace_back(omega, stats.iterations);
    BOOST_TEST_MESSAGE("hinge chain (" << stats.rows << " rows): omega " << omega << " needs " << stats.iterations << " sweeps");
  }
  for (std::size_t k = 1; k < counts.size(); ++k) BOOST_TEST(counts[k].second < counts[0].second);
}

// The same chain with the bilateral block (the default): one step from rest is solved in one sweep, whose
// rows' residual after it is reported (1e-12 m/s, no second sweep), for any omega, as the block takes its
// full step.
BOOST_AUTO_TEST_CASE(bilateral_block_solves_a_hinge_chain_in_one_sweep) {
  const RodChain chain;
  SimulatorSettings settings = solveFromZero(1e-12, 10);
  for (double omega : {1.0, 1.6}) {
    settings.solver.omega = omega;
    Simulator sim(chain.model, settings);
    sim.joints = chain.hinges;
    const StepStatistics& stats = sim.step(1e-3);
    BOOST_TEST(stats.rows == 5 * RodChain::links);
    BOOST_TEST(stats.iterations == 1);
    BOOST_TEST(stats.residual <= 1e-12);
  }
}

// A diverging simulation stops with abdyn::Error naming the model, the time and the coordinate: a
// pendulum driven by 1e200 N m reaches a velocity of order 1e200 rad/s in the first step, whose
// velocity products overflow in the second. Finite steps before it leave the state finite.
BOOST_AUTO_TEST_CASE(divergence_is_a_clear_error) {
  // In checked mode too (Debug's default), and by either response path: no algorithm inside the step
  // may report the overflow first, as a bad argument.
  const bool was_checked = checkedMode();
  for (const bool checked : {false, true}) {
    for (const ResponseMethod response : {ResponseMethod::Factorized, ResponseMethod::Articulated}) {
      setCheckedMode(checked);
      SimulatorSettings settings;
      settings.response = response;
      Simulator sim(limitedPendulum(-1.0, 0.3), settings);
      sim.tau[0] = 1e200;
      std::string message;
      int steps = 0;
      try {
        for (; steps < 10; ++steps) {
          sim.step(1e-3);
          BOOST_REQUIRE(sim.q.allFinite() && sim.v.allFinite());
        }
      } catch (const Error& e) {
        message = e.what();
      }
      BOOST_TEST_MESSAGE("checked " << checked << ", after " << steps << " steps: " << message);
      BOOST_TEST(steps >= 1);
      BOOST_TEST(message.find("model 'pendulum' diverged at t = ") != std::string::npos, message);
      BOOST_TEST(message.find("(joint 'hinge') is ") != std::string::npos, message);
      BOOST_TEST((message.find("v[0]") != std::string::npos || message.find("q[0]") != std::string::npos), message);
    }
  }
  setCheckedMode(was_checked);
}

// A floating box spun at 1e300 rad/s about a principal axis has finite dynamics (no gyroscopic torque)
// but a one-step rotation that is not: |w h|^2 overflows. That is divergence, reported as such (the
// time, the coordinate, the stage), never as a bad rotation matrix from deep inside the integration.
BOOST_AUTO_TEST_CASE(a_velocity_too_large_to_integrate_is_divergence) {
  Simulator sim(floatingBox(Vector3(0.1, 0.2, 0.3), 1.0, Vector3::Zero()), SimulatorSettings{});
  sim.v[0] = 1e300;
  checkError([&] { sim.step(1e-3); }, "abdyn::Simulator::step",
             {"model 'box' diverged at t = 0.001000 s: q[", "(joint 'free') is ", "after integrating v"});
}

// A box over the ground spun at 1e200 rad/s about an axis that is not principal: its gyroscopic
// acceleration, w x I w ~ 1e400, overflows in the free motion. The Simulator reports it there (the
// stage "after the free motion"), before the row solve or anything else computes with the non-finite
// velocity; by either response path.
BOOST_AUTO_TEST_CASE(a_non_finite_free_velocity_is_reported_before_the_rows) {
  for (const ResponseMethod response : {ResponseMethod::Factorized, ResponseMethod::Articulated}) {
    SimulatorSettings settings;
    settings.ground = true;
    settings.response = response;
    Simulator sim(floatingBox(Vector3(0.2, 0.3, 0.1), 2.0, Vector3(0, 0, -kG)), settings);
    sim.q[2] = 0.05;
    sim.v[0] = 1e200;
    sim.v[1] = 1e200;
    checkError([&] { sim.step(1e-3); }, "abdyn::Simulator::step",
               {"model 'box' diverged at t = 0.001000 s: v[", "(joint 'free') is ", "after the free motion;"});
  }
}

// settings.energy = false skips the energy (NaN in the statistics) and nothing else: the dropped box
// steps to the same states bit for bit, and with it on the energy is mechanicalEnergy's after the step.
BOOST_AUTO_TEST_CASE(energy_statistic_can_be_skipped) {
  SimulatorSettings settings;
  settings.ground = true;
  Simulator with(floatingBox(Vector3(0.2, 0.3, 0.1), 2.0, Vector3(0, 0, -kG)), settings);
  with.q[2] = 0.3;
  with.v[0] = 2.0;
  settings.energy = false;
  Simulator without(with.model(), settings);
  without.q = with.q;
  without.v = with.v;
  Data data(with.model());
  for (int k = 0; k < 300; ++k) {
    const double energy = with.step(2e-3).energy;
    BOOST_TEST(std::isnan(without.step(2e-3).energy));
    BOOST_TEST(energy == mechanicalEnergy(with.model(), data, with.q, with.v));
  }
  BOOST_TEST((with.q.array() == without.q.array()).all());
  BOOST_TEST((with.v.array() == without.v.array()).all());
}

// The dense response path (CRBA mass matrix) steps the limited pendulum and the dropped box to the same
// states as articulated-body propagation (to 1e-9 (1 + |x|) after 200 steps), and bad inputs throw.
BOOST_AUTO_TEST_CASE(dense_and_articulated_steps_agree_and_bad_input_throws) {
  for (bool box : {false, true}) {
    SimulatorSettings settings;
    settings.ground = box;
    settings.joint_limits = !box;
    settings.solver.tolerance = 1e-12;
    settings.solver.max_iterations = 500;
    settings.response = ResponseMethod::Articulated;
    Simulator articulated(box ? floatingBox(Vector3(0.2, 0.3, 0.1), 2.0, Vector3(0, 0, -kG)) : limitedPendulum(-1.0, 0.3),
                          settings);
    settings.response = ResponseMethod::Factorized;
    Simulator dense(articulated.model(), settings);
    for (Simulator* sim : {&articulated, &dense}) {
      if (box) sim->q.head<3>() << 0.0, 0.0, 0.1;
      sim->v.setConstant(0.7);
    }
    for (int k = 0; k < 200; ++k) {
      articulated.step(2e-3);
      dense.step(2e-3);
    }
    ABDYN_CHECK_NEAR(dense.q, articulated.q, 1e-9);
    ABDYN_CHECK_NEAR(dense.v, articulated.v, 1e-9);
  }
  Simulator sim(limitedPendulum(-1.0, 0.3));
  BOOST_CHECK_THROW(sim.step(0.0), InvalidArgument);
  sim.settings().substeps = 0;
  BOOST_CHECK_THROW(sim.step(1e-3), InvalidArgument);
  sim.settings().substeps = 2;
  sim.tau.resize(3);
  BOOST_CHECK_THROW(sim.step(1e-3), InvalidArgument);
  sim.tau.setZero(1);
  sim.motors.push_back(JointMotor{4, 1.0, 1.0});
  BOOST_CHECK_THROW(sim.step(1e-3), InvalidArgument);
}

// A free rod (floating body) held at the world origin by a ball joint of rows, with a swing cone of
// 0.4 rad and twist limits of +-0.2 rad, kicked to swing at 4 rad/s and spin at 3 rad/s: over 2 s the
// swing angle (between the rod's z and the world's) and the twist never pass their bounds by more than
// the margin (0.02 rad), and the ball joint's anchor stays within 1 mm.
BOOST_AUTO_TEST_CASE(ball_joint_swing_cone_and_twist_limits_hold) {
  SimulatorSettings settings;
  settings.solver.max_iterations = 50;
  Simulator sim(floatingRod(), settings);
  RowJoint ball{RowJointType::Ball, 0, 1};
  ball.swing_limit = 0.4;
  ball.twist_lower = -0.2;
  ball.twist_upper = 0.2;
  sim.joints.push_back(ball);
  sim.v.head<3>() << 4.0, 0.0, 3.0;  // angular velocity in the rod's coordinates
  double worst_swing = 0.0, worst_twist = 0.0, worst_anchor = 0.0;
  for (int k = 0; k < 1000; ++k) {
    sim.step(2e-3);
    const Eigen::Quaterniond orientation(sim.q[3], sim.q[4], sim.q[5], sim.q[6]);
    const Matrix3 R = orientation.toRotationMatrix();
    worst_swing = std::max(worst_swing, std::acos(std::min(1.0, R(2, 2))));
    // Twist of the rod about its own z after its swing: 2 atan2(q_z, q_w) of R (the world frame is A).
    worst_twist = std::max(worst_twist, std::abs(2.0 * std::atan2(orientation.z() * (orientation.w() < 0 ? -1 : 1),
                                                                   std::abs(orientation.w()))));
    worst_anchor = std::max(worst_anchor, sim.q.head<3>().norm());
  }
  BOOST_TEST_MESSAGE("swing cone: largest swing " << worst_swing << " rad (limit 0.4), twist " << worst_twist
                                                  << " rad (limit 0.2), anchor drift " << worst_anchor << " m");
  BOOST_TEST(worst_swing <= 0.4 + 0.02);
  BOOST_TEST(worst_twist <= 0.2 + 0.02);
  BOOST_TEST(worst_anchor < 1e-3);
}


// ERP over sub-steps: a free 1 kg body (zero gravity) whose ball-joint anchor is 0.1 m from its world
// anchor closes the fraction ERP = 0.2 of the error in one step, with 1 or 4 sub-steps (each of the 4
// uses 1 - 0.8^(1/4)): the error after the step is 0.08 m.
BOOST_AUTO_TEST_CASE(erp_is_per_step_with_substeps) {
  ModelBuilder b("free");
  b.setGravity(Vector3::Zero());
  JointSpec free;
  free.type = JointType::Floating;
  free.name = "free";
  b.addBody(0, free, Plx(), RigidBodyInertia(1.0, Vector3::Zero(), Matrix3::Identity() * 0.01), "body");
  for (int substeps : {1, 4}) {
    SimulatorSettings settings;
    settings.substeps = substeps;
    settings.solver.tolerance = 1e-14;
    Simulator sim(b.build(), settings);
    sim.joints.push_back(RowJoint{RowJointType::Ball, 1, 0, Plx(), Plx::translation(Vector3(0.1, 0.0, 0.0))});
    sim.step(1e-2);
    BOOST_TEST_MESSAGE(substeps << " sub-steps: error after one step " << 0.1 - sim.q[0] << " m");
    BOOST_TEST(std::abs((0.1 - sim.q[0]) - 0.08) < 1e-12);
  }
  Simulator bad(b.build());
  bad.settings().erp = 1.5;
  BOOST_CHECK_THROW(bad.step(1e-3), InvalidArgument);
}

// Coulomb joint friction from Model::friction: a wheel (0.5 kg m^2) spinning at 3 rad/s against 2 N m
// of friction decelerates at exactly 4 rad/s^2 and stops at t = 0.75 s, then stays still.
BOOST_AUTO_TEST_CASE(joint_friction_stops_a_wheel) {
  ModelBuilder b("wheel");
  JointSpec axle;
  axle.name = "axle";
  axle.friction = 2.0;
  b.addBody(0, axle, Plx(), RigidBodyInertia(1.0, Vector3::Zero(), Matrix3::Identity() * 0.5), "wheel");
  SimulatorSettings settings;
  settings.solver.tolerance = 1e-12;
  Simulator sim(b.build(), settings);
  sim.v[0] = 3.0;
  const double h = 1e-3;
  double worst = 0.0;
  for (int k = 1; k <= 1000; ++k) {
    sim.step(h);
    worst = std::max(worst, std::abs(sim.v[0] - std::max(3.0 - 4.0 * k * h, 0.0)));
  }
  BOOST_TEST_MESSAGE("joint friction: worst rate error " << worst);
  BOOST_TEST(worst < 1e-9);
}

// A mimic coupling q_follower = 2 q_leader + 0.1 as a row: the leader is driven at 1 rad/s by a motor and
// the follower keeps the relation (ERP removes its initial 0.1 rad error) to 1e-6 rad after 1 s.
BOOST_AUTO_TEST_CASE(mimic_row_couples_two_joints) {
  ModelBuilder b("gears");
  JointSpec axle;
  axle.name = "leader";
  b.addBody(0, axle, Plx(), RigidBodyInertia(1.0, Vector3::Zero(), Matrix3::Identity() * 0.5), "gear1");
  axle.name = "follower";
  b.addBody(0, axle, Plx::translation(Vector3(1, 0, 0)), RigidBodyInertia(1.0, Vector3::Zero(), Matrix3::Identity() * 0.2), "gear2");
  b.addMimic("follower", "leader", 2.0, 0.1);
  SimulatorSettings settings;
  settings.solver.tolerance = 1e-12;
  Simulator sim(b.build(), settings);
  sim.motors.push_back(JointMotor{0, 1.0, 100.0});
  for (int k = 0; k < 1000; ++k) sim.step(1e-3);
  BOOST_TEST_MESSAGE("mimic: leader " << sim.q[0] << " rad, follower " << sim.q[1] << " rad");
  BOOST_TEST(std::abs(sim.q[1] - (2.0 * sim.q[0] + 0.1)) < 1e-6);
  BOOST_TEST(std::abs(sim.v[1] - 2.0) < 1e-6);
}

// Warm starting: for a box resting on the ground, a step started from the previous step's impulses needs
// fewer sweeps to reach the residual 1e-10 than one started from zero.
BOOST_AUTO_TEST_CASE(warm_start_saves_sweeps_at_rest) {
  SimulatorSettings settings;
  settings.ground = true;
  settings.solver.tolerance = 1e-10;
  settings.solver.max_iterations = 1000;
  Simulator sim(floatingBox(Vector3(0.4, 0.3, 0.2), 2.0, Vector3(0, 0, -kG)), settings);
  sim.q[2] = 0.1;
  for (int k = 0; k < 200; ++k) sim.step(2e-3);
  const Eigen::VectorXd q = sim.q, v = sim.v;
  const int warm = sim.step(2e-3).iterations;
  sim.q = q;
  sim.v = v;
  sim.settings().solver.warm_start = false;
  const int cold = sim.step(2e-3).iterations;
  BOOST_TEST_MESSAGE("box at rest: " << warm << " sweeps warm started, " << cold << " from zero");
  BOOST_TEST(warm < cold);
}
