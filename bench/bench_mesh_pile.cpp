// A pile of 20 convex mesh objects dropped on the ground, in abdyn and MuJoCo 2.2 side by side, same meshes
// (each a hull of 32 random points on an ellipsoid, fixed seed), same masses, time step 1 ms, default
// contact settings of each. Both collide the meshes as convex hulls (MuJoCo computes them with Qhull too).
// After 1.5 s of settling (untimed), each benchmark times steps of the resting pile and reports:
//   penetration_mm  the deepest penetration over the timed steps (abdyn: StepStatistics::constraint_error
//                   of the contact rows; MuJoCo: -min mjContact::dist)
//   kinetic_mJ      kinetic energy after the timed steps (mJ): what is left moving of a pile that should rest
//   contacts        contact points in the last step
// Run: build/bench/bench_mesh_pile --benchmark_repetitions=5 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>

#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "abdyn/abdyn.hpp"
#include "mujoco_scene.hpp"

namespace {

constexpr int kObjects = 20;
constexpr double kStep = 1e-3;
constexpr int kSettleSteps = 1500;
const Eigen::Vector3d kSemiAxes(0.05, 0.04, 0.03);
constexpr double kMass = 0.2;

struct Pile {
  std::vector<std::vector<Eigen::Vector3d>> points;  // per object, its mesh's vertices
  std::vector<Eigen::Vector3d> start;                // per object, its centre at the start
};

Pile makePile() {
  std::mt19937 rng(2022);
  std::normal_distribution<double> normal;
  Pile pile;
  for (int k = 0; k < kObjects; ++k) {
    std::vector<Eigen::Vector3d> p;
    for (int i = 0; i < 32; ++i) p.push_back(Eigen::Vector3d(normal(rng), normal(rng), normal(rng)).normalized().cwiseProduct(kSemiAxes));
    pile.points.push_back(p);
    pile.start.emplace_back(0.06 * (k % 3) - 0.06, 0.06 * ((k / 3) % 3) - 0.06, 0.08 + 0.07 * (k / 9) + 0.01 * k);
  }
  return pile;
}

// The solid ellipsoid's inertia (a stand-in for each object's, the same in both programs).
Eigen::Vector3d diagonalInertia() {
  const Eigen::Vector3d s2 = kSemiAxes.cwiseProduct(kSemiAxes);
  return kMass / 5.0 * Eigen::Vector3d(s2[1] + s2[2], s2[0] + s2[2], s2[0] + s2[1]);
}

abdyn::Model abdynModel(const Pile& pile) {
  abdyn::ModelBuilder b("pile");
  for (int k = 0; k < kObjects; ++k) {
    abdyn::JointSpec free;
    free.type = abdyn::JointType::Floating;
    free.name = "free" + std::to_string(k);
    const int body = b.addBody(0, free, abdyn::Plx(),
                               abdyn::RigidBodyInertia(kMass, Eigen::Vector3d::Zero(), diagonalInertia().asDiagonal()),
                               "rock" + std::to_string(k));
    abdyn::TriangleMesh mesh;
    mesh.vertices = pile.points[static_cast<std::size_t>(k)];
    mesh.triangles.push_back({0, 1, 2});
    abdyn::Geometry g;
    g.name = "rock" + std::to_string(k);
    g.link = g.name;
    g.body = body;
    g.shape = abdyn::ShapeType::Mesh;
    g.mesh = abdyn::makeMeshShape(mesh, Eigen::Vector3d::Ones(), 0, g.name);
    b.addGeometry(g);
  }
  return b.build();
}

std::string mujocoXml(const Pile& pile) {
  std::ostringstream x;
  x.precision(17);
  const Eigen::Vector3d I = diagonalInertia();
  x << "<mujoco><option timestep=\"" << kStep << "\"/><asset>";
  for (int k = 0; k < kObjects; ++k) {
    x << "<mesh name=\"m" << k << "\" vertex=\"";
    for (const auto& p : pile.points[static_cast<std::size_t>(k)]) x << p.x() << " " << p.y() << " " << p.z() << " ";
    x << "\"/>";
  }
  x << "</asset><worldbody><geom type=\"plane\" size=\"0 0 1\"/>";
  for (int k = 0; k < kObjects; ++k) {
    const auto& s = pile.start[static_cast<std::size_t>(k)];
    x << "<body pos=\"" << s.x() << " " << s.y() << " " << s.z() << "\"><freejoint/>"
      << "<inertial pos=\"0 0 0\" mass=\"" << kMass << "\" diaginertia=\"" << I.x() << " " << I.y() << " " << I.z() << "\"/>"
      << "<geom type=\"mesh\" mesh=\"m" << k << "\" friction=\"0.8 0.005 0.0001\"/></body>";
  }
  x << "</worldbody></mujoco>";
  return x.str();
}

void abdynPile(benchmark::State& state) {
  const Pile pile = makePile();
  abdyn::SimulatorSettings settings;
  settings.ground = true;
  settings.body_contacts = true;
  abdyn::Simulator sim(abdynModel(pile), settings);
  for (int k = 0; k < kObjects; ++k) sim.q.segment<3>(7 * k) = pile.start[static_cast<std::size_t>(k)];
  for (int s = 0; s < kSettleSteps; ++s) sim.step(kStep);
  double deepest = 0.0, sweeps = 0.0;
  for (auto _ : state) {
    const abdyn::StepStatistics& st = sim.step(kStep);
    deepest = std::max(deepest, st.constraint_error);
    sweeps += st.iterations;
  }
  abdyn::Data data(sim.model());
  state.counters["penetration_mm"] = 1e3 * deepest;
  state.counters["kinetic_mJ"] = 1e3 * abdyn::kineticEnergy(sim.model(), data, sim.q, sim.v);
  state.counters["contacts"] = sim.statistics().contacts;
  state.counters["sweeps"] = sweeps / static_cast<double>(state.iterations());
}

void mujocoPile(benchmark::State& state) {
  const Pile pile = makePile();
  abdyn_bench::MujocoScene scene(mujocoXml(pile), state);
  if (!scene.ok()) return;
  for (int s = 0; s < kSettleSteps; ++s) mj_step(scene.m, scene.d);
  double deepest = 0.0;
  for (auto _ : state) {
    mj_step(scene.m, scene.d);
    deepest = std::max(deepest, scene.deepest());
  }
  scene.energy();
  state.counters["penetration_mm"] = 1e3 * deepest;
  state.counters["kinetic_mJ"] = 1e3 * scene.d->energy[1];
  state.counters["contacts"] = scene.d->ncon;
}

BENCHMARK(abdynPile)->Name("MeshPile/abdyn")->Unit(benchmark::kMicrosecond)->Iterations(1000);
BENCHMARK(mujocoPile)->Name("MeshPile/mujoco")->Unit(benchmark::kMicrosecond)->Iterations(1000);

}  // namespace

BENCHMARK_MAIN();
