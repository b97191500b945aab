// A quadruped standing on its mesh feet for 10 s, in abdyn and MuJoCo 2.2 side by side: same bodies, masses,
// inertias and feet (each the hull of 40 random points on a 2.5 cm sphere, fixed seed), time step 1 ms, the
// same joint-space PD law holding the legs straight (tau = -kp q - kd v on the eight leg joints, computed by
// the benchmark from each engine's own state), default contact settings of each. Only the feet collide.
// The trunk (8 kg box, 0.4 x 0.2 x 0.1 m) starts 5 mm above standing height. One benchmark iteration is the
// whole 10 s run (10^4 steps; time per step = the iteration's time / 10^4). Reported:
//   penetration_mm  the deepest penetration over the last 9 s (abdyn: StepStatistics::constraint_error;
//                   MuJoCo: -min mjContact::dist)
//   drift_mJ        total energy at 10 s minus total energy at 1 s (standing still: ideally zero or less)
//   energy_J        the total energy at 1 s (potential energy zero at the ground)
//   height_mm       the trunk's height at 10 s (standing: 471.5 mm, less the feet's sinking)
//   contacts        contact points in the last step
// A second scene, ArmOnTable, drops an arm with mesh links onto a table that is a static triangle mesh (below);
// ArmOnTable/abdyn_hulls collides the table by its convex hull instead, as MuJoCo does.
// Run: build/bench/bench_mesh_scenes --benchmark_repetitions=3 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>

#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "abdyn/abdyn.hpp"
#include "../tests/box_surface.hpp"
#include "mujoco_scene.hpp"

namespace {

constexpr double kStep = 1e-3;
constexpr int kSteps = 10000;        // 10 s
constexpr int kLandedStep = 1000;    // penetration and energy are judged from 1 s on
constexpr double kKp = 300.0, kKd = 3.0;
constexpr double kFootRadius = 0.025;
constexpr double kTrunkMass = 8.0, kThighMass = 1.0, kShankMass = 0.5;
const Eigen::Vector3d kTrunkSize(0.4, 0.2, 0.1);
constexpr double kLeg = 0.2;  // thigh and shank length
// Standing height of the trunk's centre: half its height, two leg segments, the foot's radius.
const double kStanding = 0.5 * kTrunkSize.z() + 2 * kLeg + kFootRadius;
constexpr double kDrop = 0.005;

std::vector<Eigen::Vector3d> footPoints() {
  std::mt19937 rng(4);
  std::normal_distribution<double> normal;
  std::vector<Eigen::Vector3d> p;
  for (int i = 0; i < 40; ++i) p.push_back(kFootRadius * Eigen::Vector3d(normal(rng), normal(rng), normal(rng)).normalized());
  p.emplace_back(0.0, 0.0, -kFootRadius);  // the sole's lowest point, so that both engines stand at one height
  return p;
}

Eigen::Vector3d hipPosition(int leg) { return {leg < 2 ? 0.15 : -0.15, leg % 2 ? 0.08 : -0.08, -0.05}; }

// Solid box and rod inertias about the centre of mass (diagonal), the same in both programs.
Eigen::Vector3d boxInertia(double m, const Eigen::Vector3d& s) {
  return m / 12.0 * Eigen::Vector3d(s.y() * s.y() + s.z() * s.z(), s.x() * s.x() + s.z() * s.z(), s.x() * s.x() + s.y() * s.y());
}
Eigen::Vector3d rodInertia(double m) { return boxInertia(m, Eigen::Vector3d(0.04, 0.04, kLeg)); }

abdyn::Model abdynQuadruped() {
  abdyn::ModelBuilder b("quadruped");
  abdyn::JointSpec free;
  free.type = abdyn::JointType::Floating;
  free.name = "root";
  const int trunk = b.addBody(0, free, abdyn::Plx(),
                              abdyn::RigidBodyInertia(kTrunkMass, Eigen::Vector3d::Zero(), boxInertia(kTrunkMass, kTrunkSize).asDiagonal()),
                              "trunk");
  abdyn::TriangleMesh foot;
  foot.vertices = footPoints();
  foot.triangles.push_back({0, 1, 2});
  const auto foot_shape = abdyn::makeMeshShape(foot, Eigen::Vector3d::Ones(), 0, "foot");
  for (int leg = 0; leg < 4; ++leg) {
    abdyn::JointSpec hip;
    hip.type = abdyn::JointType::Revolute;
    hip.axis = Eigen::Vector3d::UnitY();
    hip.name = "hip" + std::to_string(leg);
    const Eigen::Vector3d com(0.0, 0.0, -0.5 * kLeg);
    const int thigh = b.addBody(trunk, hip, abdyn::Plx::translation(hipPosition(leg)),
                                abdyn::RigidBodyInertia(kThighMass, com, rodInertia(kThighMass).asDiagonal()),
                                "thigh" + std::to_string(leg));
    abdyn::JointSpec knee = hip;
    knee.name = "knee" + std::to_string(leg);
    const int shank = b.addBody(thigh, knee, abdyn::Plx::translation(Eigen::Vector3d(0.0, 0.0, -kLeg)),
                                abdyn::RigidBodyInertia(kShankMass, com, rodInertia(kShankMass).asDiagonal()),
                                "shank" + std::to_string(leg));
    abdyn::Geometry g;
    g.name = "foot" + std::to_string(leg);
    g.link = "shank" + std::to_string(leg);
    g.body = shank;
    g.shape = abdyn::ShapeType::Mesh;
    g.X_geometry_body = abdyn::Plx::translation(Eigen::Vector3d(0.0, 0.0, -kLeg));
    g.mesh = foot_shape;
    b.addGeometry(g);
  }
  return b.build();
}

std::string mujocoQuadruped() {
  std::ostringstream x;
  x.precision(17);
  const auto vec = [](const Eigen::Vector3d& v) {
    std::ostringstream s;
    s.precision(17);
    s << v.x() << " " << v.y() << " " << v.z();
    return s.str();
  };
  x << "<mujoco><option timestep=\"" << kStep << "\"/><asset><mesh name=\"foot\" vertex=\"";
  for (const auto& p : footPoints()) x << vec(p) << " ";
  x << "\"/></asset><worldbody><geom type=\"plane\" size=\"0 0 1\"/>"
    << "<body name=\"trunk\" pos=\"0 0 " << kStanding + kDrop << "\"><freejoint/>"
    << "<inertial pos=\"0 0 0\" mass=\"" << kTrunkMass << "\" diaginertia=\"" << vec(boxInertia(kTrunkMass, kTrunkSize)) << "\"/>";
  for (int leg = 0; leg < 4; ++leg) {
    x << "<body pos=\"" << vec(hipPosition(leg)) << "\"><joint type=\"hinge\" axis=\"0 1 0\"/>"
      << "<inertial pos=\"0 0 " << -0.5 * kLeg << "\" mass=\"" << kThighMass << "\" diaginertia=\"" << vec(rodInertia(kThighMass)) << "\"/>"
      << "<body pos=\"0 0 " << -kLeg << "\"><joint type=\"hinge\" axis=\"0 1 0\"/>"
      << "<inertial pos=\"0 0 " << -0.5 * kLeg << "\" mass=\"" << kShankMass << "\" diaginertia=\"" << vec(rodInertia(kShankMass)) << "\"/>"
      << "<geom type=\"mesh\" mesh=\"foot\" pos=\"0 0 " << -kLeg << "\" friction=\"0.8 0.005 0.0001\"/></body></body>";
  }
  x << "</body></worldbody></mujoco>";
  return x.str();
}

void abdynQuadrupedStanding(benchmark::State& state) {
  abdyn::SimulatorSettings settings;
  settings.ground = true;
  settings.body_contacts = true;
  const abdyn::Model model = abdynQuadruped();
  double deepest = 0.0, drift = 0.0, height = 0.0, energy = 0.0, sweeps = 0.0;
  int contacts = 0;
  for (auto _ : state) {
    abdyn::Simulator sim(model, settings);
    sim.q[2] = kStanding + kDrop;
    deepest = 0.0;
    sweeps = 0.0;
    double energy_landed = 0.0;
    for (int s = 0; s < kSteps; ++s) {
      sim.tau.tail(8) = -kKp * sim.q.tail(8) - kKd * sim.v.tail(8);
      const abdyn::StepStatistics& st = sim.step(kStep);
      sweeps += st.iterations;
      if (s + 1 == kLandedStep) energy_landed = st.energy;
      if (s + 1 >= kLandedStep) deepest = std::max(deepest, st.constraint_error);
    }
    drift = sim.statistics().energy - energy_landed;
    energy = energy_landed;
    height = sim.q[2];
    contacts = sim.statistics().contacts;
  }
  state.counters["penetration_mm"] = 1e3 * deepest;
  state.counters["drift_mJ"] = 1e3 * drift;
  state.counters["height_mm"] = 1e3 * height;
  state.counters["contacts"] = contacts;
  state.counters["energy_J"] = energy;
  state.counters["sweeps"] = sweeps / kSteps;  // the row solver's per step
}

void mujocoQuadrupedStanding(benchmark::State& state) {
  abdyn_bench::MujocoScene scene(mujocoQuadruped(), state);
  if (!scene.ok()) return;
  mjData* d = scene.d;
  double deepest = 0.0, drift = 0.0, height = 0.0, energy = 0.0;
  int contacts = 0;
  for (auto _ : state) {
    mj_resetData(scene.m, d);
    deepest = 0.0;
    double energy_landed = 0.0;
    for (int s = 0; s < kSteps; ++s) {
      for (int j = 0; j < 8; ++j) d->qfrc_applied[6 + j] = -kKp * d->qpos[7 + j] - kKd * d->qvel[6 + j];
      mj_step(scene.m, d);
      if (s + 1 == kLandedStep) energy_landed = scene.energy();
      if (s + 1 >= kLandedStep) deepest = std::max(deepest, scene.deepest());
    }
    drift = scene.energy() - energy_landed;
    energy = energy_landed;
    height = d->qpos[2];
    contacts = d->ncon;
  }
  state.counters["penetration_mm"] = 1e3 * deepest;
  state.counters["drift_mJ"] = 1e3 * drift;
  state.counters["height_mm"] = 1e3 * height;
  state.counters["contacts"] = contacts;
  state.counters["energy_J"] = energy;
}

BENCHMARK(abdynQuadrupedStanding)->Name("QuadrupedStanding/abdyn")->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(mujocoQuadrupedStanding)->Name("QuadrupedStanding/mujoco")->Unit(benchmark::kMillisecond)->Iterations(1);

// The arm on the table: a table top (1 x 1 x 0.05 m, its upper face at z = 0.5) in the world, a triangle mesh
// whose faces are cut into 4 x 4 squares (abdyn collides its triangles; MuJoCo its hull, the same box); an arm
// fixed beside it (shoulder about z at (-0.55, 0, 0.65), upper arm 0.35 m and forearm 0.3 m about y, 1 kg each,
// bars of 5 x 5 cm as mesh hulls, joint damping 0.5 N m s) starts level and falls onto the table for 3 s.
// penetration_mm is judged from 1 s on, drift_mJ from 2 s to 3 s.
constexpr double kTop = 0.5;
constexpr int kArmSteps = 3000;

abdyn::TriangleMesh tableTop() { return abdyn_test::boxSurface(Eigen::Vector3d(1.0, 1.0, 0.05), Eigen::Vector3d(0.0, 0.0, kTop - 0.025), 4); }
abdyn::TriangleMesh bar(double length) { return abdyn_test::boxSurface(Eigen::Vector3d(length, 0.05, 0.05), Eigen::Vector3d(0.5 * length, 0.0, 0.0), 1); }
Eigen::Vector3d barInertia(double length) { return {1e-3, length * length / 12.0, length * length / 12.0}; }

abdyn::Model abdynArm() {
  abdyn::ModelBuilder b("arm_on_table");
  abdyn::Geometry table;
  table.name = "table";
  table.link = "world";
  table.shape = abdyn::ShapeType::Mesh;
  table.mesh = abdyn::makeMeshShape(tableTop(), Eigen::Vector3d::Ones(), 0, "table");
  b.addGeometry(table);
  abdyn::JointSpec shoulder;
  shoulder.name = "shoulder";
  shoulder.damping = 0.5;
  int parent = b.addBody(0, shoulder, abdyn::Plx::translation(Eigen::Vector3d(-0.55, 0.0, kTop + 0.15)),
                         abdyn::RigidBodyInertia(1.0, Eigen::Vector3d(0.0, 0.0, 0.025), Eigen::Matrix3d::Identity() * 1e-3), "shoulder");
  Eigen::Vector3d at(0.0, 0.0, 0.05);
  for (const double length : {0.35, 0.3}) {
    abdyn::JointSpec j;
    j.name = length > 0.32 ? "upper" : "fore";
    j.axis = Eigen::Vector3d::UnitY();
    j.damping = 0.5;
    parent = b.addBody(parent, j, abdyn::Plx::translation(at),
                       abdyn::RigidBodyInertia(1.0, Eigen::Vector3d(0.5 * length, 0.0, 0.0), barInertia(length).asDiagonal()), j.name);
    abdyn::Geometry g;
    g.name = j.name;
    g.link = j.name;
    g.body = parent;
    g.shape = abdyn::ShapeType::Mesh;
    g.mesh = abdyn::makeMeshShape(bar(length), Eigen::Vector3d::Ones(), 0, j.name);
    b.addGeometry(g);
    at = Eigen::Vector3d(length, 0.0, 0.0);
  }
  return b.build();
}

std::string mujocoArm() {
  std::ostringstream x;
  x.precision(17);
  const auto mesh = [&](const std::string& name, const abdyn::TriangleMesh& m) {
    x << "<mesh name=\"" << name << "\" vertex=\"";
    for (const auto& p : m.vertices) x << p.x() << " " << p.y() << " " << p.z() << " ";
    x << "\"/>";
  };
  x << "<mujoco><option timestep=\"" << kStep << "\"/><asset>";
  mesh("table", tableTop());
  mesh("upper", bar(0.35));
  mesh("fore", bar(0.3));
  x << "</asset><worldbody><geom type=\"mesh\" mesh=\"table\"/>"
    << "<body pos=\"-0.55 0 " << kTop + 0.15 << "\"><joint type=\"hinge\" axis=\"0 0 1\" damping=\"0.5\"/>"
    << "<inertial pos=\"0 0 0.025\" mass=\"1\" diaginertia=\"0.001 0.001 0.001\"/>";
  Eigen::Vector3d at(0.0, 0.0, 0.05);
  for (const double length : {0.35, 0.3}) {
    const Eigen::Vector3d I = barInertia(length);
    x << "<body pos=\"" << at.x() << " " << at.y() << " " << at.z() << "\"><joint type=\"hinge\" axis=\"0 1 0\" damping=\"0.5\"/>"
      << "<inertial pos=\"" << 0.5 * length << " 0 0\" mass=\"1\" diaginertia=\"" << I.x() << " " << I.y() << " " << I.z() << "\"/>"
      << "<geom type=\"mesh\" mesh=\"" << (length > 0.32 ? "upper" : "fore") << "\" friction=\"0.8 0.005 0.0001\"/>";
    at = Eigen::Vector3d(length, 0.0, 0.0);
  }
  x << "</body></body></body></worldbody></mujoco>";
  return x.str();
}

// geometry: StaticMeshes collides the table's triangles (the default), ConvexHulls its hull (as MuJoCo does).
void abdynArmOnTable(benchmark::State& state, abdyn::ContactGeometry geometry) {
  abdyn::SimulatorSettings settings;
  settings.body_contacts = true;
  settings.contact.world_shapes = true;
  settings.contact.geometry = geometry;
  const abdyn::Model model = abdynArm();
  double deepest = 0.0, drift = 0.0;
  int contacts = 0;
  for (auto _ : state) {
    abdyn::Simulator sim(model, settings);
    deepest = 0.0;
    double energy_rest = 0.0;
    for (int s = 0; s < kArmSteps; ++s) {
      const abdyn::StepStatistics& st = sim.step(kStep);
      if (s + 1 == 2000) energy_rest = st.energy;
      if (s + 1 >= kLandedStep) deepest = std::max(deepest, st.constraint_error);
    }
    drift = sim.statistics().energy - energy_rest;
    contacts = sim.statistics().contacts;
  }
  state.counters["penetration_mm"] = 1e3 * deepest;
  state.counters["drift_mJ"] = 1e3 * drift;
  state.counters["contacts"] = contacts;
}

void mujocoArmOnTable(benchmark::State& state) {
  abdyn_bench::MujocoScene scene(mujocoArm(), state);
  if (!scene.ok()) return;
  mjData* d = scene.d;
  double deepest = 0.0, drift = 0.0;
  int contacts = 0;
  for (auto _ : state) {
    mj_resetData(scene.m, d);
    deepest = 0.0;
    double energy_rest = 0.0;
    for (int s = 0; s < kArmSteps; ++s) {
      mj_step(scene.m, d);
      if (s + 1 == 2000) energy_rest = scene.energy();
      if (s + 1 >= kLandedStep) deepest = std::max(deepest, scene.deepest());
    }
    drift = scene.energy() - energy_rest;
    contacts = d->ncon;
  }
  state.counters["penetration_mm"] = 1e3 * deepest;
  state.counters["drift_mJ"] = 1e3 * drift;
  state.counters["contacts"] = contacts;
}

BENCHMARK_CAPTURE(abdynArmOnTable, triangles, abdyn::ContactGeometry::StaticMeshes)
    ->Name("ArmOnTable/abdyn")->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(abdynArmOnTable, hulls, abdyn::ContactGeometry::ConvexHulls)
    ->Name("ArmOnTable/abdyn_hulls")->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(mujocoArmOnTable)->Name("ArmOnTable/mujoco")->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
