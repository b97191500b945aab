// Simulation scenes run by abdyn's Simulator, Bullet's btMultiBody and MuJoCo side by side (Google
// Benchmark), 1000 steps of 2 ms each, 20 solver iterations per step (200 for the delta robot's peers,
// kDeltaSweeps for abdyn; abdyn also with half as many, MuJoCo also with its default Newton solver). One benchmark iteration is the whole run from the same initial
// state; the counter per_step is the time per step. Built with -DABDYN_BENCH_PEERS=ON
// (docs/performance.md). Scenes (names StepRun/<scene>/<library>):
//   humanoid_ragdoll  the humanoid (floating base, 30 revolute joints with their URDF limits, damping
//                     and Coulomb friction) dropped with a sideways push onto a ground plane, where it
//                     falls and comes to rest. Every engine uses its own collision detection on the
//                     same boxes, cylinders and sphere, friction coefficient 0.8.
//   arm_7dof          the 7-DoF arm (models/iiwa7.urdf, limits, damping, friction), no ground: falls and
//                     swings from 0.4 rad on every joint (makeArm).
//   delta_robot       the delta robot (models/delta_robot.urdf: fixed base, platform on a floating
//                     joint, three revolute loop joints) released at rest from its closed zero pose
//                     (upper arms horizontal) under gravity and constant motor torques, no damping:
//                     a conservative system (gravity and constant torques have potentials), so the
//                     exact motion keeps E = T + V - tau . q, and it swings about a regular pose.
//
// TransitionJacobians/<scene>/<library> times the step's transition Jacobians A = d x_next / d x and
// B = d x_next / d tau of the ragdoll (in the air, 40 ms into its drop, and lying at rest on the ground after
// 2 s: humanoid_ragdoll_resting), the arm at the same state and the delta robot 40 ms into its swing:
// abdyn's SimulatorStepJacobians (analytic, active set held fixed) against MuJoCo's mjd_transitionFD
// (centred differences), each first checked against a reference (addTransition).
//
// RolloutRun/<scene>/<library>/threads:k times a batch of kRolloutRuns runs of each scene on 1 and 2
// threads (step_scene.hpp): abdyn::rollout against MuJoCo driven the same way, one mjData per thread.
//
// Before timing, two checks are printed and stored in the JSON context:
//   model  each engine's joint accelerations at a random state without contacts, loops, limits,
//          friction and damping, against abdyn's ABA (max |peer - abdyn| / max |abdyn|): the scene is
//          the same multibody in every engine;
//   run    the state after the run, judged by abdyn's model for every engine, so that speed is
//          compared at known accuracy. Ragdoll: the largest penetration of a shape into the ground,
//          the largest joint-limit violation, the kinetic energy (at rest: near 0) and the root height.
//          Delta: the largest loop-closure error (abdyn's C of the URDF's loop joints, angular and
//          linear rows apart) and the energy drift E(end) - E(start).

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "abdyn/abdyn.hpp"
#include "bench_common.hpp"
#include "peers/peer.hpp"
#include "peers/step_scene.hpp"

namespace {

using abdyn_bench::StepReport;
using abdyn_bench::StepScene;

constexpr double kGround = -0.95;  // the humanoid's feet reach 0.93 m below the pelvis in the neutral pose

// The delta robot's motor torques (N m, motors 1 to 3; a positive motor angle turns the upper arm
// down). Holding the zero pose takes about 1.2 N m per motor, so the arms drop and swing about the pose
// where these torques balance gravity, about 0.55 rad below horizontal; unequal, so that the platform
// also moves sideways. In abdyn the motor angles stay within 0 to 1.16 rad over the run, clear of the
// limits (1.5 rad) and of the extended, singular pose.
constexpr double kDeltaTorque[3] = {-1.15, -1.10, -1.05};
// Solver iterations per step for the delta robot's peers: their PGS needs about 200 to hold the loops
// (the closure rows through the 0.01 kg wrist links are strongly coupled), as abdyn's did row by row.
constexpr int kDeltaIterations = 200;
// abdyn's sweeps per step there: its bilateral block (row_pgs.hpp) solves the 15 closure rows directly,
// so one sweep holds the loops and the rows' residual after it confirms them (there are no other rows).
constexpr int kDeltaSweeps = 20;

abdyn_bench::Mat3 rowMajor(const Eigen::Matrix3d& m) {
  return {m(0, 0), m(0, 1), m(0, 2), m(1, 0), m(1, 1), m(1, 2), m(2, 0), m(2, 1), m(2, 2)};
}
abdyn_bench::Vec3 array3(const Eigen::Vector3d& v) { return {v.x(), v.y(), v.z()}; }
Eigen::Vector3d vector3(const abdyn_bench::Vec3& v) { return {v[0], v[1], v[2]}; }
std::vector<double> toStd(const Eigen::VectorXd& x) { return {x.data(), x.data() + x.size()}; }
Eigen::VectorXd toEigen(const std::vector<double>& x) { return Eigen::Map<const Eigen::VectorXd>(x.data(), static_cast<Eigen::Index>(x.size())); }

// A scene's abdyn side: the model, the scene in plain types and, for closed scenes, the URDF's loops.
struct SceneSetup {
  abdyn::Model model;
  StepScene scene;
  abdyn::ConstraintSet loops;  // measures the closure error; the Simulator holds them by hinge rows
  int abdyn_sweeps;            // abdyn's sweeps per step (the peers get scene.iterations)
};

// abdyn at the scene's iteration count ("abdyn") and at half of it ("abdyn_half": speed for accuracy).
struct AbdynVariant {
  const char* library;
  int divisor;
};
constexpr AbdynVariant kAbdynVariants[] = {{"abdyn", 1}, {"abdyn_half", 2}};

abdyn::SimulatorSettings abdynSettings(const SceneSetup& setup, const AbdynVariant& variant) {
  const StepScene& scene = setup.scene;
  abdyn::SimulatorSettings settings;
  settings.joint_limits = true;
  settings.ground = scene.ground;
  settings.contact.height = scene.ground_height;
  settings.contact.mu = scene.mu;
  settings.solver.max_iterations = setup.abdyn_sweeps / variant.divisor;
  return settings;
}

// A frame on a body with its z axis along `axis` (body coordinates) at `origin`: maps body coordinates
// into the frame's, as RowJoint::X_frame_a and X_frame_b want.
abdyn::Plx hingeFrame(const Eigen::Vector3d& origin, const Eigen::Vector3d& axis) {
  const Eigen::Vector3d z = axis.normalized();
  const Eigen::Vector3d x = z.unitOrthogonal();
  Eigen::Matrix3d R_body_frame;
  R_body_frame << x, z.cross(x), z;
  return abdyn::Plx::fromPose(R_body_frame, origin);
}

// The Simulator at the scene's initial state, its hinges as RowJoint hinges (3 linear + 2 angular rows).
std::unique_ptr<abdyn::Simulator> makeSimulator(const SceneSetup& setup, const AbdynVariant& variant) {
  const StepScene& scene = setup.scene;
  auto sim = std::make_unique<abdyn::Simulator>(setup.model, abdynSettings(setup, variant));
  for (const abdyn_bench::StepHinge& h : scene.hinges) {
    abdyn::RowJoint joint;
    joint.type = abdyn::RowJointType::Hinge;
    joint.body_a = h.body_a + 1;  // scene body k is abdyn body k + 1
    joint.body_b = h.body_b + 1;
    joint.X_frame_a = hingeFrame(vector3(h.p_a), vector3(h.axis_a));
    joint.X_frame_b = hingeFrame(vector3(h.p_b), vector3(h.axis_b));
    sim->joints.push_back(joint);
  }
  sim->q = toEigen(scene.q0);
  sim->v = toEigen(scene.v0);
  if (!scene.tau.empty()) sim->tau = toEigen(scene.tau);
  return sim;
}

abdyn::Model loadModel(const std::string& path, bool floating_base) {
  abdyn::UrdfOptions options;
  options.floating_base = floating_base;
  return abdyn::loadUrdf(path, options);
}

// The model's bodies, joints and collision shapes in plain types, and a random state for the model check.
StepScene describeModel(const std::string& label, const std::string& path, bool floating_base, const abdyn::Model& model) {
  StepScene s;
  s.label = label;
  s.problem.label = s.label;
  s.problem.urdf = path;
  s.problem.floating_base = floating_base;
  s.problem.nq = model.nq();
  s.problem.nv = model.nv();
  s.problem.gravity = array3(model.gravity().linear());
  for (int i = 1; i < model.nbodies(); ++i) {
    const abdyn::Joint& joint = model.joint(i);
    abdyn_bench::StepBody b;
    b.name = model.bodyName(i);
    b.parent = model.parent(i) - 1;
    b.joint = {joint.name, b.name, joint.idx_q, joint.idx_v, joint.nq, joint.nv, joint.type == abdyn::JointType::Floating};
    s.problem.joints.push_back(b.joint);
    const Eigen::Isometry3d X = model.Xtree(i).toPose();
    b.R_parent_body = rowMajor(X.linear());
    b.p_parent_body = array3(X.translation());
    b.axis = array3(joint.axis);
    b.mass = model.inertia(i).mass();
    b.com = array3(model.inertia(i).com());
    b.inertia = rowMajor(model.inertia(i).inertiaAboutCom());
    if (!b.joint.floating) {
      const double lower = model.lowerPositionLimit()[joint.idx_q], upper = model.upperPositionLimit()[joint.idx_q];
      if (std::isfinite(lower) && std::isfinite(upper)) {  // continuous joints have none
        b.lower = lower;
        b.upper = upper;
      }
      b.damping = model.damping()[joint.idx_v];
      b.friction = model.friction()[joint.idx_v];
    }
    for (const abdyn::Geometry& g : model.geometries()) {
      if (g.role != abdyn::GeometryRole::Collision || g.body != i || !abdyn::isCollidable(g)) continue;
      abdyn_bench::StepShape shape;
      shape.type = g.shape == abdyn::ShapeType::Box        ? abdyn_bench::StepShape::Type::Box
                   : g.shape == abdyn::ShapeType::Cylinder ? abdyn_bench::StepShape::Type::Cylinder
                                                           : abdyn_bench::StepShape::Type::Sphere;
      const Eigen::Isometry3d pose = g.X_geometry_body.toPose();
      shape.R_body_shape = rowMajor(pose.linear());
      shape.p_body_shape = array3(pose.translation());
      shape.size = array3(g.size);
      b.shapes.push_back(shape);
    }
    s.bodies.push_back(b);
  }
  std::mt19937 rng(99);
  s.v_check = toStd(abdyn_bench::randomVector(rng, model.nv()));
  s.q_check = toStd(abdyn::randomConfiguration(model, rng));
  return s;
}

// The model models/`file` (on a floating base or fixed) as the scene `label`, as describeModel gives it,
// abdyn's sweeps the peers' iterations.
SceneSetup sceneOf(const std::string& dir, const char* file, const char* label, bool floating) {
  const std::string path = dir + "/models/" + file;
  SceneSetup setup{loadModel(path, floating), {}, {}, 0};
  setup.scene = describeModel(label, path, floating, setup.model);
  setup.abdyn_sweeps = setup.scene.iterations;
  return setup;
}

// The humanoid dropped with a sideways push onto the ground below its feet.
SceneSetup makeRagdoll(const std::string& dir) {
  SceneSetup setup = sceneOf(dir, "humanoid.urdf", "humanoid_ragdoll", true);
  StepScene& s = setup.scene;
  s.ground_height = kGround;
  Eigen::VectorXd v0 = Eigen::VectorXd::Zero(setup.model.nv());
  v0.segment<3>(3) << 0.8, 0.5, 0.2;
  s.q0 = toStd(abdyn::neutral(setup.model));
  s.v0 = toStd(v0);
  return setup;
}

// The 7-DoF arm (models/iiwa7.urdf, fixed base, its URDF limits, damping and Coulomb friction), no
// ground and no contacts: released from every joint at 0.4 rad with 0.5 rad/s on every joint, it falls
// under gravity and swings (joint 2 into its limit at 2.09 rad), 1000 steps of 2 ms.
SceneSetup makeArm(const std::string& dir) {
  SceneSetup setup = sceneOf(dir, "iiwa7.urdf", "arm_7dof", false);
  StepScene& s = setup.scene;
  s.ground = false;
  s.q0.assign(static_cast<std::size_t>(setup.model.nq()), 0.4);
  s.v0.assign(static_cast<std::size_t>(setup.model.nv()), 0.5);
  return setup;
}

// The delta robot released at rest from its closed zero pose, its motors at kDeltaTorque, no ground.
SceneSetup makeDelta(const std::string& dir) {
  const std::string path = dir + "/models/delta_robot.urdf";
  SceneSetup setup{loadModel(path, false), {}, {}, kDeltaSweeps};
  const abdyn::Model& model = setup.model;
  StepScene& s = setup.scene;
  s = describeModel("delta_robot", path, false, model);
  s.ground = false;
  s.iterations = kDeltaIterations;
  setup.loops = abdyn::loadUrdfLoops(path, model);
  for (const abdyn::LoopClosure& loop : setup.loops.loops) {
    if (loop.rows() != 5) throw std::runtime_error("delta_robot: loop joint " + loop.name + " is not revolute");
    // A revolute closure's two angular rows are perpendicular to its axis (Fa coordinates).
    const Eigen::Vector3d axis = loop.directions.row(0).head<3>().cross(loop.directions.row(1).head<3>()).transpose();
    abdyn_bench::StepHinge hinge;
    hinge.name = loop.name;
    hinge.body_a = loop.body_a - 1;
    hinge.body_b = loop.body_b - 1;
    hinge.p_a = array3(loop.p_a);
    hinge.p_b = array3(loop.p_b);
    hinge.axis_a = array3(loop.R_a * axis);
    hinge.axis_b = array3(loop.R_b * axis);  // Fb's axes are Fa's when the loop is closed
    s.hinges.push_back(hinge);
  }
  s.q0 = toStd(abdyn::neutral(model));
  s.v0.assign(static_cast<std::size_t>(model.nv()), 0.0);
  s.tau.assign(static_cast<std::size_t>(model.nv()), 0.0);
  for (int k = 0; k < 3; ++k) {
    const int motor = model.bodyId("upper_arm_" + std::to_string(k + 1));
    s.tau[static_cast<std::size_t>(model.joint(motor).idx_v)] = kDeltaTorque[k];
  }
  return setup;
}

StepReport runAbdyn(const SceneSetup& setup, const AbdynVariant& variant) {
  const StepScene& scene = setup.scene;
  StepReport report;
  report.library = variant.library;
  abdyn::Data data(setup.model);
  const abdyn::DynamicsOptions no_damping{true, false};
  report.free_qdd = toStd(abdyn::forwardDynamics(setup.model, data, toEigen(scene.q_check), toEigen(scene.v_check),
                                                 Eigen::VectorXd::Zero(setup.model.nv()), no_damping));
  abdyn_bench::zeroFloating(scene, report.free_qdd);
  const std::unique_ptr<abdyn::Simulator> sim = makeSimulator(setup, variant);
  long contacts = 0, iterations = 0;
  for (int k = 0; k < scene.steps; ++k) {
    const abdyn::StepStatistics& stats = sim->step(scene.h);
    contacts += stats.contacts;
    iterations += stats.iterations;
  }
  report.q_end = toStd(sim->q);
  report.v_end = toStd(sim->v);
  report.mean_contacts = static_cast<double>(contacts) / scene.steps;
  char note[200];
  std::snprintf(note, sizeof note, "PGS, %d sweeps at most, tolerance %g m/s (mean %.1f sweeps per step)",
                sim->settings().solver.max_iterations, sim->settings().solver.tolerance,
                static_cast<double>(iterations) / scene.steps);
  report.note = note;
  return report;
}

void registerAbdyn(const SceneSetup& setup, const AbdynVariant& variant) {
  const StepScene& scene = setup.scene;
  benchmark::RegisterBenchmark(("StepRun/" + scene.label + "/" + variant.library).c_str(), [&setup, variant](benchmark::State& state) {
    const int steps = setup.scene.steps;
    const double h = setup.scene.h;
    long rows = 0, iterations = 0;
    for (auto _ : state) {
      state.PauseTiming();
      std::unique_ptr<abdyn::Simulator> sim = makeSimulator(setup, variant);
      state.ResumeTiming();
      for (int k = 0; k < steps; ++k) {
        const abdyn::StepStatistics& stats = sim->step(h);
        rows += stats.rows;
        iterations += stats.iterations;
      }
      state.PauseTiming();
      sim.reset();
      state.ResumeTiming();
    }
    const double total = static_cast<double>(steps) * state.iterations();
    state.counters["per_step"] = benchmark::Counter(total, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["rows"] = static_cast<double>(rows) / total;
    state.counters["sweeps"] = static_cast<double>(iterations) / total;
  });
}

// RolloutRun/<scene>/abdyn/threads:k: the rollout batch (step_scene.hpp) by abdyn::rollout on k threads,
// the workers (one Simulator per thread) built once outside the timing; one iteration is the whole batch.
// Without statistics the rollout skips the step's energy (SimulatorSettings::energy), as MuJoCo's mj_step
// does without mjENBL_ENERGY.
// Real time and the CPU time of the whole process (all threads); steps_per_second counts the steps of all
// runs per second of real time.
void registerAbdynRollout(const SceneSetup& setup) {
  benchmark::RegisterBenchmark(("RolloutRun/" + setup.scene.label + "/abdyn").c_str(), [&setup](benchmark::State& state) {
    const StepScene& scene = setup.scene;
    const int threads = static_cast<int>(state.range(0)), N = abdyn_bench::kRolloutRuns, T = scene.steps;
    const int nq = setup.model.nq(), nv = setup.model.nv();
    abdyn::RolloutWorkers workers(*makeSimulator(setup, kAbdynVariants[0]), threads);
    abdyn::RowMatrixXd q0(N, nq), v0(N, nv), tau = abdyn::RowMatrixXd::Zero(N, T * nv);
    for (int n = 0; n < N; ++n) {
      const double scale = abdyn_bench::rolloutScale(n);
      q0.row(n) = toEigen(scene.q0).transpose();
      v0.row(n) = scale * toEigen(scene.v0).transpose();
      if (!scene.tau.empty()) tau.row(n) = (scale * toEigen(scene.tau)).transpose().replicate(1, T);
    }
    abdyn::RowMatrixXd Q(N, (T + 1) * nq), V(N, (T + 1) * nv);
    for (auto _ : state) {
      abdyn::rollout(workers, q0, v0, tau, T, scene.h, Q, V);
      benchmark::DoNotOptimize(Q.data());
    }
    state.counters["steps_per_second"] =
        benchmark::Counter(static_cast<double>(N) * T * state.iterations(), benchmark::Counter::kIsRate);
  })->Arg(1)->Arg(2)->ArgName("threads")->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);
}

// StepPgs/<scene>/abdyn: the projected Gauss-Seidel sweeps alone on the rows of the run's last step, in
// the coordinates of the factor of M at that step's configuration as the Simulator solves them there
// (row_pgs.hpp; the time includes each row's L^-T J^T), from zero impulses, always abdyn's sweeps of the
// scene; time_per_row_iteration is the time per row per sweep, as bench_rows.cpp's RagdollPgs reports it.
void registerAbdynPgs(const SceneSetup& setup) {
  benchmark::RegisterBenchmark(("StepPgs/" + setup.scene.label + "/abdyn").c_str(), [&setup](benchmark::State& state) {
    const std::unique_ptr<abdyn::Simulator> sim = makeSimulator(setup, kAbdynVariants[0]);
    for (int k = 0; k + 1 < setup.scene.steps; ++k) sim->step(setup.scene.h);
    const Eigen::VectorXd q_last = sim->q;
    sim->step(setup.scene.h);
    abdyn::Data data(setup.model);
    abdyn::forwardDynamicsCrba(setup.model, data, q_last, sim->v, sim->tau);  // the factor of M at the rows' q
    abdyn::RowSet rows = sim->rows();
    abdyn::PgsSettings settings = sim->settings().solver;
    settings.warm_start = false;
    settings.tolerance = 0.0;
    Eigen::VectorXd v(sim->v.size());
    abdyn::PgsReport report;
    for (auto _ : state) {
      v = sim->v;
      report = abdyn::solveRowsPgs(setup.model, data, rows, v, settings);
      benchmark::DoNotOptimize(v.data());
    }
    state.counters["rows"] = rows.size();
    state.counters["time_per_row_iteration"] =
        benchmark::Counter(static_cast<double>(rows.size()) * report.iterations * state.iterations(),
                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  });
}

// The largest penetration of a collision shape into the ground at q (exact for boxes, cylinders, spheres).
double penetration(const abdyn::Model& model, abdyn::Data& data, const Eigen::VectorXd& q, double height) {
  abdyn::forwardKinematics(model, data, q);
  double lowest = INFINITY;
  for (const abdyn::Geometry& g : model.geometries()) {
    if (g.role != abdyn::GeometryRole::Collision || !abdyn::isCollidable(g)) continue;
    const Eigen::Isometry3d pose = data.X_body_world[g.body].toPose() * g.X_geometry_body.toPose();
    const Eigen::Matrix3d& R = pose.linear();
    double z = pose.translation().z();
    if (g.shape == abdyn::ShapeType::Box) {
      for (int k = 0; k < 3; ++k) z -= 0.5 * g.size[k] * std::abs(R(2, k));
    } else if (g.shape == abdyn::ShapeType::Cylinder) {
      const double az = std::abs(R(2, 2));
      z -= 0.5 * g.size[1] * az + g.size[0] * std::sqrt(std::max(0.0, 1.0 - az * az));
    } else if (g.shape == abdyn::ShapeType::Sphere) {
      z -= g.size[0];
    }
    lowest = std::min(lowest, z);
  }
  return std::max(0.0, height - lowest);
}

// The ragdoll's end-of-run measures: penetration (m), limit excess (rad), kinetic energy (J), root z (m).
std::string ragdollMeasures(const SceneSetup& setup, const Eigen::VectorXd& q, const Eigen::VectorXd& v, double mean_contacts) {
  abdyn::Data data(setup.model);
  const double depth = penetration(setup.model, data, q, setup.scene.ground_height);
  double limit = 0.0;
  for (const auto& b : setup.scene.bodies) {
    if (b.lower < b.upper) limit = std::max({limit, b.lower - q[b.joint.idx_q], q[b.joint.idx_q] - b.upper});
  }
  const double energy = abdyn::kineticEnergy(setup.model, data, q, v);
  char row[120];
  std::snprintf(row, sizeof row, "%12.2e %12.2e %10.2e %8.3f %8.1f", depth, limit, energy, q[2], mean_contacts);
  return row;
}

// The energy the delta scene keeps: kinetic + gravity's potential - the constant joint forces' work tau . q.
double conservedEnergy(const SceneSetup& setup, abdyn::Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  double work = 0.0;
  for (const auto& b : setup.scene.bodies) {
    if (!b.joint.floating) work += setup.scene.tau[static_cast<std::size_t>(b.joint.idx_v)] * q[b.joint.idx_q];
  }
  return abdyn::kineticEnergy(setup.model, data, q, v) + abdyn::potentialEnergy(setup.model, data, q) - work;
}

// The delta's end-of-run measures: the largest loop-closure error of the angular rows (rad) and of the
// linear rows (m), from abdyn's C of the URDF's loop joints, and the energy drift E(end) - E(start) (J).
std::string loopMeasures(const SceneSetup& setup, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  abdyn::Data data(setup.model);
  abdyn::ConstraintKinematics ck(setup.model, setup.loops);
  abdyn::constraintJacobian(setup.model, data, setup.loops, ck, q);
  double angular = 0.0, linear = 0.0;
  int row = 0;
  for (const abdyn::LoopClosure& loop : setup.loops.loops) {
    for (int k = 0; k < loop.rows(); ++k, ++row) {
      double& worst = loop.directions.row(k).head<3>().norm() > 0.0 ? angular : linear;  // [angular; linear] rows
      worst = std::max(worst, std::abs(ck.C[row]));
    }
  }
  const double drift = conservedEnergy(setup, data, q, v) -
                       conservedEnergy(setup, data, toEigen(setup.scene.q0), toEigen(setup.scene.v0));
  char text[120];
  std::snprintf(text, sizeof text, "%12.2e %12.2e %12.2e", angular, linear, drift);
  return text;
}

// The arm's end-of-run measures: the largest joint-limit violation (rad), the kinetic energy (J) and the
// largest difference of the final joint angles from abdyn's (rad).
std::string armMeasures(const SceneSetup& setup, const Eigen::VectorXd& q, const Eigen::VectorXd& v, const StepReport& reference) {
  abdyn::Data data(setup.model);
  double limit = 0.0;
  for (const auto& b : setup.scene.bodies) {
    if (b.lower < b.upper) limit = std::max({limit, b.lower - q[b.joint.idx_q], q[b.joint.idx_q] - b.upper});
  }
  const double energy = abdyn::kineticEnergy(setup.model, data, q, v);
  const double apart = (q - toEigen(reference.q_end)).cwiseAbs().maxCoeff();
  char row[120];
  std::snprintf(row, sizeof row, "%12.2e %10.2e %12.2e", limit, energy, apart);
  return row;
}

void checkReport(const SceneSetup& setup, const StepReport& report, const StepReport& reference) {
  char row[300];
  std::string context;
  if (!report.error.empty()) {
    context = "not run: " + report.error;
    std::snprintf(row, sizeof row, "%-12s %s", report.library.c_str(), context.c_str());
  } else {
    const Eigen::VectorXd q = toEigen(report.q_end), v = toEigen(report.v_end);
    const double model_error = abdyn_bench::relativeError(report.free_qdd, reference.free_qdd);
    const std::string measures = !setup.loops.loops.empty() ? loopMeasures(setup, q, v)
                                 : setup.scene.ground   ? ragdollMeasures(setup, q, v, report.mean_contacts)
                                                        : armMeasures(setup, q, v, reference);
    std::snprintf(row, sizeof row, "%-12s %9.1e %s", report.library.c_str(), model_error, measures.c_str());
    context = row;
  }
  std::cout << row << "\n";
  if (!report.note.empty()) std::cout << "    " << report.note << "\n";
  benchmark::AddCustomContext("check " + setup.scene.label + " " + report.library, context + " (" + report.note + ")");
}

// TransitionJacobians/<scene>/abdyn (step_scene.hpp): SimulatorStepJacobians::step, the analytic
// Jacobians of one step with its active set of rows held fixed, at the scene's state after
// kTransitionSteps steps (the timing resets q and v before each call). The check before timing uses a
// simulator whose solver converges to 1e-14 m/s, against centred differences of its own step with
// eps = 1e-5 (truncation O(eps^2), solver error / eps below 1e-9), as tests/test_simulator_derivatives.cpp
// does, over the columns whose perturbed steps keep the step's active set.
constexpr int kTransitionSteps = 20;  // 40 ms: the humanoid is still in the air, falling towards the ground

std::vector<double> rowMajor(const Eigen::MatrixXd& m) {
  const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> r = m;
  return {r.data(), r.data() + r.size()};
}

abdyn_bench::TransitionCheck addAbdynTransition(const SceneSetup& setup, int steps, const std::string& label, bool at_rest,
                                               Eigen::VectorXd& q, Eigen::VectorXd& v) {
  const StepScene& scene = setup.scene;
  std::shared_ptr<abdyn::Simulator> sim = makeSimulator(setup, kAbdynVariants[0]);
  for (int k = 0; k < steps; ++k) sim->step(scene.h);
  q = sim->q;
  v = sim->v;
  abdyn_bench::TransitionCheck check;
  check.library = "abdyn";
  {
    const abdyn::Model& model = setup.model;
    const int n = model.nv();
    abdyn::SimulatorSettings tight = sim->settings();
    tight.solver.tolerance = 1e-14;
    tight.solver.max_iterations = 5000;
    if (at_rest) {
      // Contacts and limits at rest sit at C = 0 within rounding, the kink of their targets (slopes -1/h open,
      // -erp/h penetrating), where differences straddling it average the two: at ERP 1 the slopes agree.
      tight.erp = 1.0;
      tight.contact.erp = 1.0;
    }
    abdyn::Simulator start(model, tight);
    start.joints = sim->joints;
    start.q = q;
    start.v = v;
    start.tau = sim->tau;
    abdyn::Simulator nominal = start;
    abdyn::SimulatorStepJacobians jacobians(nominal);
    jacobians.step(nominal, scene.h);
    constexpr double eps = 1e-5;
    Eigen::MatrixXd A(2 * n, 2 * n), B(2 * n, n);
    std::vector<bool> switched(static_cast<std::size_t>(3 * n), false);  // a perturbed step changed the active set
    const auto run = [&](int column, double sign) {
      abdyn::Simulator s = start;
      Eigen::VectorXd e = Eigen::VectorXd::Zero(n);
      e[column % n] = sign * eps;
      if (column < n) s.q = abdyn::integrate(model, start.q, e, 1.0);
      else if (column < 2 * n) s.v += e;
      else s.tau += e;
      s.step(scene.h);
      bool kept = s.rows().size() == nominal.rows().size();
      for (int r = 0; kept && r < s.rows().size(); ++r) {
        kept = s.rows()[r].key == nominal.rows()[r].key &&
               abdyn::SimulatorStepJacobians::activity(s.rows(), r, jacobians.clamp_tolerance) == jacobians.activity()[static_cast<std::size_t>(r)];
      }
      if (!kept) switched[static_cast<std::size_t>(column)] = true;
      Eigen::VectorXd x(2 * n);
      x << abdyn::difference(model, nominal.q, s.q), s.v - nominal.v;
      return x;
    };
    for (int c = 0; c < 3 * n; ++c) {
      const Eigen::VectorXd column = (run(c, 1.0) - run(c, -1.0)) / (2.0 * eps);
      if (c < 2 * n) A.col(c) = column;
      else B.col(c - 2 * n) = column;
    }
    // A column whose perturbed steps left the step's branch (a switch, where the step has no derivative)
    // says nothing about the Jacobian: it is left out of the comparison, and counted.
    Eigen::MatrixXd A_j = jacobians.A, B_j = jacobians.B;
    int left_out = 0;
    for (int c = 0; c < 3 * n; ++c) {
      if (!switched[static_cast<std::size_t>(c)]) continue;
      ++left_out;
      if (c < 2 * n) A.col(c) = A_j.col(c) = Eigen::VectorXd::Unit(2 * n, c);
      else B.col(c - 2 * n) = B_j.col(c - 2 * n) = Eigen::VectorXd::Zero(2 * n);
    }
    check.difference = abdyn_bench::transitionDifference(rowMajor(A_j), rowMajor(B_j), rowMajor(A), rowMajor(B), 2 * n);
    check.note = "SimulatorStepJacobians, " + std::to_string(nominal.rows().size()) +
                 " rows held fixed; the difference is to centred differences, eps 1e-5, over the " +
                 std::to_string(3 * n - left_out) + " of " + std::to_string(3 * n) +
                 " columns whose perturbed steps kept the active set" + (at_rest ? ", ERP 1 (C = 0 is a kink of the targets at rest)" : "");
  }
  // abdyn_rebuilt: every row differentiated by centred rebuilds (rebuild_all_rows) instead of the analytic row
  // derivatives, to show their gain in the same run.
  for (const bool rebuilt : {false, true}) {
    benchmark::RegisterBenchmark(("TransitionJacobians/" + label + (rebuilt ? "/abdyn_rebuilt" : "/abdyn")).c_str(),
                                 [sim, q, v, h = scene.h, rebuilt](benchmark::State& state) {
                                   abdyn::SimulatorStepJacobians jacobians(*sim);
                                   jacobians.rebuild_all_rows = rebuilt;
                                   for (auto _ : state) {
                                     sim->q = q;
                                     sim->v = v;
                                     jacobians.step(*sim, h);
                                     benchmark::DoNotOptimize(jacobians.A.data());
                                   }
                                 })
        ->Unit(benchmark::kMicrosecond);
  }
  return check;
}

// The transition Jacobians of the scene in abdyn and MuJoCo at the same state, abdyn's after `steps` steps
// of the scene, with their checks; benchmarks TransitionJacobians/<label>/<library>.
void addTransition(const SceneSetup& setup, int steps = kTransitionSteps, const std::string& suffix = "") {
  const std::string label = setup.scene.label + suffix;
  Eigen::VectorXd q, v;
  std::vector<abdyn_bench::TransitionCheck> checks{addAbdynTransition(setup, steps, label, !suffix.empty(), q, v)};
#ifdef ABDYN_BENCH_WITH_MUJOCO
  checks.push_back(abdyn_bench::addMujocoTransition(setup.scene, label, toStd(q), toStd(v)));
#endif
  std::cout << label << ": transition Jacobians after " << steps << " steps\n";
  for (const abdyn_bench::TransitionCheck& c : checks) {
    char row[300];
    if (c.error.empty()) std::snprintf(row, sizeof row, "%-12s difference %.1e (%s)", c.library.c_str(), c.difference, c.note.c_str());
    else std::snprintf(row, sizeof row, "%-12s not run: %s", c.library.c_str(), c.error.c_str());
    std::cout << row << "\n";
    benchmark::AddCustomContext("transition " + label + " " + c.library, row);
  }
  std::cout << std::endl;
}

// TransitionJacobians/humanoid_ragdoll_resting/<library>: the ragdoll lying at rest on the ground after its
// drop, kRestingSteps steps (2 s), with 14 contact points whose free rows, with the joint friction rows of the
// joints they hold, outnumber its 36 coordinates (the least-squares case of docs/derivatives.md, section 8).
// MuJoCo starts from abdyn's state there and finds its own contacts.
constexpr int kRestingSteps = 1000;
void addRestingTransition(const SceneSetup& ragdoll) { addTransition(ragdoll, kRestingSteps, "_resting"); }

// TransitionJacobians/delta_robot/<library>: the delta robot kTransitionSteps steps into its swing, its three
// hinge loop joints (15 rows of joints of rows, all free) held. MuJoCo holds its loops with connect equalities.
void addDeltaTransition(const SceneSetup& delta) { addTransition(delta); }

// Runs the scene once in every engine, prints the checks and registers the timed runs.
void addScene(const SceneSetup& setup) {
  const StepScene& scene = setup.scene;
  std::vector<StepReport> reports;
  for (const AbdynVariant& variant : kAbdynVariants) {
    reports.push_back(runAbdyn(setup, variant));
    registerAbdyn(setup, variant);
  }
  registerAbdynRollout(setup);
  if (!setup.loops.loops.empty()) registerAbdynPgs(setup);
  const StepReport reference = reports.front();
#ifdef ABDYN_BENCH_WITH_BULLET
  for (auto& r : abdyn_bench::addBulletStep(scene)) reports.push_back(std::move(r));
#endif
#ifdef ABDYN_BENCH_WITH_MUJOCO
  for (auto& r : abdyn_bench::addMujocoStep(scene)) reports.push_back(std::move(r));
#endif
  std::cout << scene.label << ": " << scene.steps << " steps of " << scene.h << " s\n";
  char header[200];
  if (setup.loops.loops.empty() && scene.ground) {
    std::snprintf(header, sizeof header, "%-12s %9s %12s %12s %10s %8s %8s", "library", "model", "penetration", "limit excess",
                  "kinetic", "root z", "contacts");
  } else if (setup.loops.loops.empty()) {
    std::snprintf(header, sizeof header, "%-12s %9s %12s %10s %12s", "library", "model", "limit excess", "kinetic", "q - abdyn's");
  } else {
    std::snprintf(header, sizeof header, "%-12s %9s %12s %12s %12s", "library", "model", "loop C rad", "loop C m", "E drift J");
  }
  std::cout << header << "\n";
  for (const auto& report : reports) checkReport(setup, report, reference);
  std::cout << std::endl;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = ABDYN_SOURCE_DIR;
  std::vector<char*> rest = abdyn_bench::takeSourceArgument(argc, argv, dir);
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  abdyn::logger()->set_level(spdlog::level::err);

  // The adapters' benchmarks keep references to the scenes: they live until the end of main.
  static const SceneSetup ragdoll = makeRagdoll(dir);
  static const SceneSetup delta = makeDelta(dir);
  static const SceneSetup arm = makeArm(dir);
  addScene(ragdoll);
  addScene(delta);
  addScene(arm);
  addTransition(ragdoll);
  addRestingTransition(ragdoll);
  addTransition(arm);
  addDeltaTransition(delta);

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
