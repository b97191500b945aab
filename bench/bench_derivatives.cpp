// Timing of abdyn's analytic derivatives against one ABA (and one RNEA) of the same model, interleaved in
// one Google Benchmark run: the ratio derivative / ABA is the figure issue 19 asks for (Carpentier and
// Mansard report about 3 to 5 ABA for Pinocchio's derivatives). docs/performance.md has the table and the
// command; Pinocchio's own derivatives are not timed here (it is not built on the benchmark machine).
//
// Benchmark names are <call>/<model>. Each model has 64 random valid states drawn before timing and every
// loop cycles through them. Physics as in bench_peers: gravity, armature on, damping off.
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
  std::vector<char*> rest = abdyn_bench::takeSourceArgument(argc, argv, dir);
  int rest_argc = static_cast<int>(rest.size());
  abdyn::logger()->set_level(spdlog::level::err);

  std::vector<std::pair<std::string, std::unique_ptr<BenchModel>>> models;
  for (const ModelFile& file : kModels) {
    abdyn::UrdfOptions options;
    options.floating_base = file.floating_base;
    options.accept_invalid_inertia = true;  // talos_reduced's inertias, as in bench_peers
    auto m = std::make_unique<BenchModel>(BenchModel{abdyn::loadUrdf(dir + "/" + file.path, options), {}, {}, {}, {}});
    std::mt19937 rng(1234);
    for (int s = 0; s < kStates; ++s) {
      m->q.push_back(abdyn::randomConfiguration(m->model, rng));
      m->v.push_back(abdyn_bench::randomVector(rng, m->model.nv()));
      m->tau.push_back(abdyn_bench::randomVector(rng, m->model.nv()));
      m->qdd.push_back(abdyn_bench::randomVector(rng, m->model.nv()));
    }
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
  benchmark::Initialize(&rest_argc, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
