// One simulation scene run by abdyn's Simulator, Bullet's btMultiBody and MuJoCo side by side (Google
// Benchmark): the humanoid as a ragdoll (floating base, 30 revolute joints with their URDF limits,
// damping and Coulomb friction) dropped with a sideways push onto a ground plane, where it falls and
// comes to rest; 1000 steps of 2 ms. Every engine uses its own collision detection on the same boxes,
// cylinders and sphere, friction coefficient 0.8, 20 solver iterations per step (abdyn also with 10,
// MuJoCo also with its default Newton solver). One benchmark iteration is the whole run from the same initial state; the
// counter per_step is the time per step. Built with -DABDYN_BENCH_PEERS=ON (docs/performance.md).
//
// Before timing, two checks are printed and stored in the JSON context:
//   model  each engine's joint accelerations at the initial state without contacts, limits, friction
//          and damping, against abdyn's ABA (max |peer - abdyn| / max |abdyn|): the scene is the same
//          multibody in every engine;
//   run    the state after the run, judged by abdyn's model for every engine: the largest
//          penetration of a shape into the ground, the largest joint-limit violation, the kinetic
//          energy (at rest: near 0) and the root height, so that speed is compared at known accuracy.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "abdyn/abdyn.hpp"
#include "bench_common.hpp"
#include "peers/step_scene.hpp"

namespace {

using abdyn_bench::StepReport;
using abdyn_bench::StepScene;

constexpr double kGround = -0.95;  // the humanoid's feet reach 0.93 m below the pelvis in the neutral pose

abdyn_bench::Mat3 rowMajor(const Eigen::Matrix3d& m) {
  return {m(0, 0), m(0, 1), m(0, 2), m(1, 0), m(1, 1), m(1, 2), m(2, 0), m(2, 1), m(2, 2)};
}
abdyn_bench::Vec3 array3(const Eigen::Vector3d& v) { return {v.x(), v.y(), v.z()}; }
std::vector<double> toStd(const Eigen::VectorXd& x) { return {x.data(), x.data() + x.size()}; }
Eigen::VectorXd toEigen(const std::vector<double>& x) { return Eigen::Map<const Eigen::VectorXd>(x.data(), static_cast<Eigen::Index>(x.size())); }

// abdyn at the scene's iteration count ("abdyn") and at half of it ("abdyn_half": speed for accuracy).
struct AbdynVariant {
  const char* library;
  int divisor;
};
constexpr AbdynVariant kAbdynVariants[] = {{"abdyn", 1}, {"abdyn_half", 2}};

abdyn::SimulatorSettings abdynSettings(const StepScene& scene, const AbdynVariant& variant) {
  abdyn::SimulatorSettings settings;
  settings.joint_limits = true;
  settings.ground = true;
  settings.contact.height = scene.ground_height;
  settings.contact.mu = scene.mu;
  settings.solver.max_iterations = scene.iterations / variant.divisor;
  return settings;
}

const char* const kUrdf = "/models/humanoid.urdf";

abdyn::Model loadModel(const std::string& dir) {
  abdyn::UrdfOptions options;
  options.floating_base = true;
  return abdyn::loadUrdf(dir + kUrdf, options);
}

// The scene in plain types, from abdyn's model of the URDF.
StepScene makeScene(const std::string& dir, const abdyn::Model& model) {
  StepScene s;
  s.label = "humanoid_ragdoll";
  s.problem.label = s.label;
  s.problem.urdf = dir + kUrdf;
  s.problem.floating_base = true;
  s.problem.nq = model.nq();
  s.problem.nv = model.nv();
  s.problem.gravity = array3(model.gravity().linear());
  s.ground_height = kGround;
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
      b.lower = model.lowerPositionLimit()[joint.idx_q];
      b.upper = model.upperPositionLimit()[joint.idx_q];
      b.damping = model.damping()[joint.idx_v];
      b.friction = model.friction()[joint.idx_v];
    }
    for (const abdyn::Geometry& g : model.geometries()) {
      if (g.role != abdyn::GeometryRole::Collision || g.body != i || g.shape == abdyn::ShapeType::Mesh) continue;
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
  Eigen::VectorXd v0 = Eigen::VectorXd::Zero(model.nv());
  v0.segment<3>(3) << 0.8, 0.5, 0.2;
  s.q0 = toStd(abdyn::neutral(model));
  s.v0 = toStd(v0);
  std::mt19937 rng(99);
  s.v_check = toStd(abdyn_bench::randomVector(rng, model.nv()));
  s.q_check = toStd(abdyn::randomConfiguration(model, rng));
  return s;
}

StepReport runAbdyn(const StepScene& scene, const abdyn::Model& model, const AbdynVariant& variant) {
  StepReport report;
  report.library = variant.library;
  abdyn::Data data(model);
  const abdyn::DynamicsOptions no_damping{true, false};
  Eigen::VectorXd qdd = abdyn::forwardDynamics(model, data, toEigen(scene.q_check), toEigen(scene.v_check),
                                               Eigen::VectorXd::Zero(model.nv()), no_damping);
  qdd.head<6>().setZero();  // joint accelerations only
  report.free_qdd = toStd(qdd);
  abdyn::Simulator sim(model, abdynSettings(scene, variant));
  sim.q = toEigen(scene.q0);
  sim.v = toEigen(scene.v0);
  long contacts = 0, iterations = 0;
  for (int k = 0; k < scene.steps; ++k) {
    const abdyn::StepStatistics& stats = sim.step(scene.h);
    contacts += stats.contacts;
    iterations += stats.iterations;
  }
  report.q_end = toStd(sim.q);
  report.v_end = toStd(sim.v);
  report.mean_contacts = static_cast<double>(contacts) / scene.steps;
  char note[200];
  std::snprintf(note, sizeof note, "PGS, %d sweeps at most, tolerance %g m/s (mean %.1f sweeps per step)",
                sim.settings().solver.max_iterations, sim.settings().solver.tolerance,
                static_cast<double>(iterations) / scene.steps);
  report.note = note;
  return report;
}

void registerAbdyn(const StepScene& scene, const abdyn::Model& model, const AbdynVariant& variant) {
  benchmark::RegisterBenchmark(("StepRun/" + scene.label + "/" + variant.library).c_str(), [&scene, &model, variant](benchmark::State& state) {
    long rows = 0, iterations = 0;
    for (auto _ : state) {
      state.PauseTiming();
      auto sim = std::make_unique<abdyn::Simulator>(model, abdynSettings(scene, variant));
      sim->q = toEigen(scene.q0);
      sim->v = toEigen(scene.v0);
      state.ResumeTiming();
      for (int k = 0; k < scene.steps; ++k) {
        const abdyn::StepStatistics& stats = sim->step(scene.h);
        rows += stats.rows;
        iterations += stats.iterations;
      }
      state.PauseTiming();
      sim.reset();
      state.ResumeTiming();
    }
    const double steps = static_cast<double>(scene.steps) * state.iterations();
    state.counters["per_step"] = benchmark::Counter(steps, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["rows"] = static_cast<double>(rows) / steps;
    state.counters["sweeps"] = static_cast<double>(iterations) / steps;
  });
}

// The largest penetration of a collision shape into the ground at q (exact for boxes, cylinders, spheres).
double penetration(const abdyn::Model& model, abdyn::Data& data, const Eigen::VectorXd& q, double height) {
  abdyn::forwardKinematics(model, data, q);
  double lowest = INFINITY;
  for (const abdyn::Geometry& g : model.geometries()) {
    if (g.role != abdyn::GeometryRole::Collision || g.shape == abdyn::ShapeType::Mesh) continue;
    const Eigen::Isometry3d pose = data.X_world[g.body].toPose() * g.X_geometry_body.toPose();
    const Eigen::Matrix3d& R = pose.linear();
    double z = pose.translation().z();
    if (g.shape == abdyn::ShapeType::Box) {
      for (int k = 0; k < 3; ++k) z -= 0.5 * g.size[k] * std::abs(R(2, k));
    } else if (g.shape == abdyn::ShapeType::Cylinder) {
      const double az = std::abs(R(2, 2));
      z -= 0.5 * g.size[1] * az + g.size[0] * std::sqrt(std::max(0.0, 1.0 - az * az));
    } else {
      z -= g.size[0];
    }
    lowest = std::min(lowest, z);
  }
  return std::max(0.0, height - lowest);
}

void checkReport(const StepScene& scene, const abdyn::Model& model, const StepReport& report, const StepReport& reference) {
  char row[300];
  std::string context;
  if (!report.error.empty()) {
    context = "not run: " + report.error;
    std::snprintf(row, sizeof row, "%-12s %s", report.library.c_str(), context.c_str());
  } else {
    abdyn::Data data(model);
    const Eigen::VectorXd q = toEigen(report.q_end), v = toEigen(report.v_end);
    const double model_error = abdyn_bench::relativeError(report.free_qdd, reference.free_qdd);
    const double depth = penetration(model, data, q, scene.ground_height);
    double limit = 0.0;
    for (const auto& b : scene.bodies) {
      if (b.joint.floating) continue;
      limit = std::max({limit, b.lower - q[b.joint.idx_q], q[b.joint.idx_q] - b.upper});
    }
    const double energy = 0.5 * v.dot(abdyn::massMatrix(model, data, q) * v);
    std::snprintf(row, sizeof row, "%-12s %9.1e %12.2e %12.2e %10.2e %8.3f %8.1f", report.library.c_str(), model_error,
                  depth, limit, energy, q[2], report.mean_contacts);
    context = row;
  }
  std::cout << row << "\n";
  if (!report.note.empty()) std::cout << "    " << report.note << "\n";
  benchmark::AddCustomContext("check " + scene.label + " " + report.library, context + " (" + report.note + ")");
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = ABDYN_SOURCE_DIR;
  std::vector<char*> rest = abdyn_bench::takeSourceArgument(argc, argv, dir);
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  abdyn::logger()->set_level(spdlog::level::err);

  static const abdyn::Model model = loadModel(dir);
  static const StepScene scene = makeScene(dir, model);
  std::vector<StepReport> reports;
  for (const AbdynVariant& variant : kAbdynVariants) {
    reports.push_back(runAbdyn(scene, model, variant));
    registerAbdyn(scene, model, variant);
  }
  const StepReport reference = reports.front();
#ifdef ABDYN_BENCH_WITH_BULLET
  for (auto& r : abdyn_bench::addBulletStep(scene)) reports.push_back(std::move(r));
#endif
#ifdef ABDYN_BENCH_WITH_MUJOCO
  for (auto& r : abdyn_bench::addMujocoStep(scene)) reports.push_back(std::move(r));
#endif
  std::cout << scene.label << ": " << scene.steps << " steps of " << scene.h << " s\n";
  char header[200];
  std::snprintf(header, sizeof header, "%-12s %9s %12s %12s %10s %8s %8s", "library", "model", "penetration", "limit excess",
                "kinetic", "root z", "contacts");
  std::cout << header << "\n";
  for (const auto& report : reports) checkReport(scene, model, report, reference);
  std::cout << std::endl;

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
