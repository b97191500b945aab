// Timing of abdyn's kinematics and dynamics on the benchmark models (Google Benchmark).
//
// Each benchmark cycles through 64 random valid states drawn before timing, so no call sees the
// same input twice in a row. Run from the source tree or pass --models DIR:
//   ./build-bench/bench/bench_dynamics --benchmark_filter=ABA
// Build with -DABDYN_NATIVE=ON (-O3 -march=native) to compare with peers built the same way.

#include <benchmark/benchmark.h>

#include <functional>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "abdyn/abdyn.hpp"
#include "bench_common.hpp"

namespace {

constexpr int kStates = 64;

struct BenchModel {
  std::string label;
  abdyn::Model model;
  std::vector<Eigen::VectorXd> q, v, tau, qdd;
};

std::vector<std::unique_ptr<BenchModel>>& registry() {
  static std::vector<std::unique_ptr<BenchModel>> models;
  return models;
}

void addModel(const std::string& label, abdyn::Model model) {
  auto m = std::make_unique<BenchModel>(BenchModel{label, std::move(model), {}, {}, {}, {}});
  abdyn_bench::drawStates(m->model, kStates, 1234, m->q, m->v, m->tau, m->qdd);
  registry().push_back(std::move(m));
}

void loadModels(const std::string& dir) {
  abdyn::UrdfOptions fixed, floating;
  fixed.accept_invalid_inertia = floating.accept_invalid_inertia = true;
  floating.floating_base = true;
  const std::string peers = dir + "/bench/models/";
  const std::string ours = dir + "/models/";
  addModel("iiwa", abdyn::loadUrdf(peers + "kuka_iiwa.urdf", fixed));
  addModel("panda", abdyn::loadUrdf(peers + "panda.urdf", fixed));
  addModel("talos_floating", abdyn::loadUrdf(peers + "talos_reduced.urdf", floating));
  addModel("quadruped_floating", abdyn::loadUrdf(ours + "quadruped.urdf", floating));
  addModel("humanoid_floating", abdyn::loadUrdf(ours + "humanoid.urdf", floating));
  for (const char* name : {"chain_30", "tree_30", "chain_100", "tree_100", "chain_1000", "tree_1000"}) {
    addModel(name, abdyn::loadUrdf(peers + name + ".urdf", fixed));
  }
}

using Call = std::function<void(BenchModel&, abdyn::Data&, int)>;

void run(benchmark::State& state, BenchModel* m, const Call& call) {
  abdyn::Data data(m->model);
  abdyn_bench::cycleStates(state, kStates, [&](int s) { call(*m, data, s); });
  state.counters["nv"] = m->model.nv();
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = ABDYN_SOURCE_DIR;
  std::vector<char*> rest = abdyn_bench::benchArguments(argc, argv, dir);
  int rest_argc = static_cast<int>(rest.size());
  loadModels(dir);

  const std::vector<std::pair<std::string, Call>> algorithms = {
      {"ForwardKinematics", [](BenchModel& m, abdyn::Data& d, int s) { abdyn::forwardKinematics(m.model, d, m.q[s], m.v[s]); }},
      {"FrameJacobian",
       [](BenchModel& m, abdyn::Data& d, int s) {
         benchmark::DoNotOptimize(abdyn::frameJacobian(m.model, d, m.q[s], m.model.nframes() - 1, abdyn::ReferenceFrame::World));
       }},
      {"RNEA", [](BenchModel& m, abdyn::Data& d, int s) { benchmark::DoNotOptimize(abdyn::inverseDynamics(m.model, d, m.q[s], m.v[s], m.qdd[s])); }},
      {"CRBA", [](BenchModel& m, abdyn::Data& d, int s) { benchmark::DoNotOptimize(abdyn::massMatrix(m.model, d, m.q[s])); }},
      {"ABA", [](BenchModel& m, abdyn::Data& d, int s) { benchmark::DoNotOptimize(abdyn::forwardDynamics(m.model, d, m.q[s], m.v[s], m.tau[s])); }},
      {"ForwardDynamicsCRBA",
       [](BenchModel& m, abdyn::Data& d, int s) {
         benchmark::DoNotOptimize(abdyn::forwardDynamicsCrba(m.model, d, m.q[s], m.v[s], m.tau[s]));
       }},
  };
  for (const auto& [name, call] : algorithms) {
    for (auto& m : registry()) {
      benchmark::RegisterBenchmark((name + "/" + m->label).c_str(), [call = call, model = m.get()](benchmark::State& st) {
        run(st, model, call);
      });
    }
  }
  benchmark::Initialize(&rest_argc, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
