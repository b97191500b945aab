// Timing of abdyn's analytic derivatives against one ABA (and one RNEA) of the same model, interleaved in
// one Google Benchmark run: the ratio derivative / ABA (Carpentier and Mansard report about 3 to 5 ABA for
// Pinocchio's derivatives). docs/performance.md has the table and the command; Pinocchio's own derivatives
// are timed by bench_peers.
//
// Benchmark names are <call>/<model>. Each model has 64 random valid states drawn before timing and every
// loop cycles through them. Physics as in bench_peers: gravity, armature on, damping off.
//
// TransitionJacobians/cylinder_box_sphere/abdyn and /abdyn_rebuilt: SimulatorStepJacobians::step on a small
// scene with body contacts involving a cylinder (contactScene), with the analytic row derivatives and with
// every row differentiated by centred rebuilds (rebuild_all_rows), interleaved: the cylinder's contact rows
// were rebuilt before they were analytic (bench_step_peers times the humanoid, the arm and the delta robot).
//
//   ./build-bench/bench/bench_derivatives [--source DIR] --benchmark_repetitions=3 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>

#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "abdyn/abdyn.hpp"
#include "bench_common.hpp"

namespace {

constexpr int kStates = 64;
const abdyn::DynamicsOptions kOptions{true, false};

struct ModelFile {
  const char* label;
  const char* path;  // relative to the source directory
  bool floating_base;
};

// The models and labels of bench_peers.
const ModelFile kModels[] = {
    {"kuka_iiwa", "bench/models/kuka_iiwa.urdf", false},
    {"panda", "bench/models/panda.urdf", false},
    {"quadruped_floating", "models/quadruped.urdf", true},
    {"humanoid_floating", "models/humanoid.urdf", true},
    {"talos_reduced_floating", "bench/models/talos_reduced.urdf", true},
    {"chain_30", "bench/models/chain_30.urdf", false},
    {"tree_30", "bench/models/tree_30.urdf", false},
    {"chain_100", "bench/models/chain_100.urdf", false},
    {"tree_100", "bench/models/tree_100.urdf", false},
};

struct BenchModel {
  abdyn::Model model;
  std::vector<Eigen::VectorXd> q, v, tau, qdd;
};

using Call = std::function<void(BenchModel&, abdyn::Data&, abdyn::StepJacobians&, int)>;

// A box (0.4 x 0.3 x 0.2 m, 2 kg) on the ground, a cylinder (radius 0.05 m, 0.2 m long, 0.5 kg) lying across
// its top and a ball (radius 0.1 m, 1 kg) on its top beside the cylinder's side, each on a floating joint
// (nv = 18), at rest with every contact 1 mm in, mu 0.8: ground contacts on the box's four lower corners, body
// contacts of the cylinder's two rim points on the box, the ball on the box and on the cylinder's side (8
// contacts, 24 rows, every one free or carrying an impulse). The benchmark steps by 1 ms from that state.

abdyn::Simulator contactScene() {
  abdyn::ModelBuilder b("cylinder_box_sphere");
  abdyn::JointSpec free;
  free.type = abdyn::JointType::Floating;
  const auto add = [&](const std::string& name, abdyn::ShapeType shape, const Eigen::Vector3d& size, double mass,
                       const Eigen::Vector3d& inertia) {
    free.name = name + "_free";
    abdyn::Geometry g;
    g.name = name + "_collision";
    g.link = name;
    g.body = b.addBody(0, free, abdyn::Plx(), abdyn::RigidBodyInertia(mass, Eigen::Vector3d::Zero(), inertia.asDiagonal()), name);
    g.shape = shape;
    g.size = size;
    b.addGeometry(g);
  };
  const double r = 0.05, l = 0.2;  // the cylinder: uniform solid, I = m (3 r^2 + l^2) / 12 across, m r^2 / 2 along
  add("box", abdyn::ShapeType::Box, {0.4, 0.3, 0.2}, 2.0, 2.0 / 12.0 * Eigen::Vector3d(0.13, 0.2, 0.25));
  add("cylinder", abdyn::ShapeType::Cylinder, {r, l, 0.0}, 0.5,
      Eigen::Vector3d(0.5 * (3 * r * r + l * l) / 12, 0.5 * (3 * r * r + l * l) / 12, 0.5 * r * r / 2));
  add("ball", abdyn::ShapeType::Sphere, {0.1, 0.0, 0.0}, 1.0, Eigen::Vector3d::Constant(0.4 * 0.1 * 0.1));
  abdyn::SimulatorSettings settings;
  settings.ground = true;
  settings.body_contacts = true;
  abdyn::Simulator sim(b.build(), settings);
  // The box 1 mm into the ground (its top at z = 0.199); the cylinder's axis along y, its two rim points facing
  // the box's origin (15 degrees off vertical) 1 mm into the top; the ball 1 mm into the top and 1 mm into the
  // cylinder's side (its centre 0.149 m from the axis).
  sim.q.segment<3>(0) << 0.0, 0.0, 0.099;
  sim.q.segment<3>(7) << -0.04, 0.0, 0.24625;
  sim.q.segment<4>(10) = abdyn::Quaternion::fromRotationMatrix(abdyn::expSO3(Eigen::Vector3d(M_PI / 2, 0.0, 0.0))).coeffsWxyz();
  sim.q.segment<3>(14) << 0.0997, 0.0, 0.298;
  return sim;
}

void run(benchmark::State& state, BenchModel* m, const Call& call) {
  abdyn::Data data(m->model);
  abdyn::StepJacobians step(m->model);
  int s = 0;
  for (auto _ : state) {
    call(*m, data, step, s);
    s = (s + 1) % kStates;
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = ABDYN_SOURCE_DIR;
  std::vector<char*> rest = abdyn_bench::benchArguments(argc, argv, dir);
  int rest_argc = static_cast<int>(rest.size());

  std::vector<std::pair<std::string, std::unique_ptr<BenchModel>>> models;
  for (const ModelFile& file : kModels) {
    abdyn::UrdfOptions options;
    options.floating_base = file.floating_base;
    options.accept_invalid_inertia = true;  // talos_reduced's inertias, as in bench_peers
    auto m = std::make_unique<BenchModel>(BenchModel{abdyn::loadUrdf(dir + "/" + file.path, options), {}, {}, {}, {}});
    abdyn_bench::drawStates(m->model, kStates, 1234, m->q, m->v, m->tau, m->qdd);
    models.emplace_back(file.label, std::move(m));
  }

  const std::vector<std::pair<std::string, Call>> calls = {
      {"ABA", [](BenchModel& m, abdyn::Data& d, abdyn::StepJacobians&, int s) {
         benchmark::DoNotOptimize(abdyn::forwardDynamics(m.model, d, m.q[s], m.v[s], m.tau[s], kOptions));
       }},
      {"RNEA", [](BenchModel& m, abdyn::Data& d, abdyn::StepJacobians&, int s) {
         benchmark::DoNotOptimize(abdyn::inverseDynamics(m.model, d, m.q[s], m.v[s], m.qdd[s], kOptions));
       }},
      {"InverseMassMatrix", [](BenchModel& m, abdyn::Data& d, abdyn::StepJacobians&, int s) {
         benchmark::DoNotOptimize(abdyn::inverseMassMatrix(m.model, d, m.q[s], kOptions).data());
       }},
      {"InverseDynamicsDerivatives", [](BenchModel& m, abdyn::Data& d, abdyn::StepJacobians&, int s) {
         abdyn::inverseDynamicsDerivatives(m.model, d, m.q[s], m.v[s], m.qdd[s], kOptions);
         benchmark::DoNotOptimize(d.dtau_dq.data());
       }},
      {"ForwardDynamicsDerivatives", [](BenchModel& m, abdyn::Data& d, abdyn::StepJacobians&, int s) {
         abdyn::forwardDynamicsDerivatives(m.model, d, m.q[s], m.v[s], m.tau[s], kOptions);
         benchmark::DoNotOptimize(d.dqdd_dq.data());
       }},
      {"StepJacobiansSemiImplicitEuler", [](BenchModel& m, abdyn::Data& d, abdyn::StepJacobians& j, int s) {
         j.semiImplicitEuler(m.model, d, m.q[s], m.v[s], m.tau[s], 1e-3, kOptions);
         benchmark::DoNotOptimize(j.A.data());
       }},
      {"StepJacobiansRK4", [](BenchModel& m, abdyn::Data& d, abdyn::StepJacobians& j, int s) {
         j.rungeKutta4(m.model, d, m.q[s], m.v[s], m.tau[s], 1e-3, kOptions);
         benchmark::DoNotOptimize(j.A.data());
       }},
  };
  // Interleaved per model: every call on one model runs next to the others, under the same machine load.
  for (auto& [label, m] : models) {
    for (const auto& [name, call] : calls) {
      benchmark::RegisterBenchmark((name + "/" + label).c_str(),
                                   [call = call, model = m.get()](benchmark::State& st) { run(st, model, call); });
    }
  }
  const abdyn::Simulator scene = contactScene();
  for (const bool rebuilt : {false, true}) {
    benchmark::RegisterBenchmark(rebuilt ? "TransitionJacobians/cylinder_box_sphere/abdyn_rebuilt"
                                         : "TransitionJacobians/cylinder_box_sphere/abdyn",
                                 [&scene, rebuilt](benchmark::State& state) {
                                   abdyn::Simulator sim = scene;
                                   abdyn::SimulatorStepJacobians jacobians(sim);
                                   jacobians.rebuild_all_rows = rebuilt;
                                   for (auto _ : state) {
                                     sim.q = scene.q;
                                     sim.v = scene.v;
                                     jacobians.step(sim, 1e-3);
                                     benchmark::DoNotOptimize(jacobians.A.data());
                                   }
                                   state.counters["rows"] = sim.rows().size();
                                   state.counters["contacts"] = sim.statistics().contacts;
                                 })
        ->Unit(benchmark::kMicrosecond);
  }
  benchmark::Initialize(&rest_argc, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
