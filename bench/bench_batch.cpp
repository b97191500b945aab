// Batched forward dynamics (batch.hpp) against the serial loop over the same states, one Data:
//   bench_batch [--source DIR] [Google Benchmark flags]
// Each iteration computes ABA for all kStates states (rows of one N x nq array), so items/s is states/s.
// BM_Loop is the C++ loop the batched call must match with one thread; Batch/threads:2 shows the split.

#include <random>

#include <benchmark/benchmark.h>

#include "abdyn/abdyn.hpp"
#include "bench_common.hpp"

namespace {

constexpr Eigen::Index kStates = 100000;

struct Batch {
  abdyn::Model model;
  abdyn::RowMatrixXd Q, V, TAU, QDD;
};

Batch makeBatch(const abdyn::Model& model) {
  std::mt19937 rng(42);
  Batch b{model, abdyn::RowMatrixXd(kStates, model.nq()), abdyn::RowMatrixXd(kStates, model.nv()),
          abdyn::RowMatrixXd(kStates, model.nv()), abdyn::RowMatrixXd(kStates, model.nv())};
  for (Eigen::Index k = 0; k < kStates; ++k) {
    b.Q.row(k) = abdyn::randomConfiguration(model, rng).transpose();
    b.V.row(k) = abdyn_bench::randomVector(rng, model.nv()).transpose();
    b.TAU.row(k) = abdyn_bench::randomVector(rng, model.nv()).transpose();
  }
  return b;
}

void loop(benchmark::State& state, Batch* b) {
  abdyn::Data data(b->model);
  Eigen::VectorXd q(b->model.nq()), v(b->model.nv()), tau(b->model.nv());
  for (auto _ : state) {
    for (Eigen::Index k = 0; k < kStates; ++k) {
      q = b->Q.row(k).transpose();
      v = b->V.row(k).transpose();
      tau = b->TAU.row(k).transpose();
      b->QDD.row(k) = abdyn::forwardDynamics(b->model, data, q, v, tau).transpose();
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kStates);
}

void batch(benchmark::State& state, Batch* b) {
  const int threads = static_cast<int>(state.range(0));
  for (auto _ : state) {
    abdyn::forwardDynamicsBatch(b->model, b->Q, b->V, b->TAU, b->QDD, threads);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kStates);
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = ABDYN_SOURCE_DIR;
  std::vector<char*> rest = abdyn_bench::takeSourceArgument(argc, argv, dir);
  int rest_argc = static_cast<int>(rest.size());
  abdyn::logger()->set_level(spdlog::level::err);
  abdyn::UrdfOptions fixed, floating;
  fixed.accept_invalid_inertia = true;
  floating.floating_base = true;
  static std::vector<std::pair<std::string, Batch>> batches;
  batches.emplace_back("iiwa", makeBatch(abdyn::loadUrdf(dir + "/bench/models/kuka_iiwa.urdf", fixed)));
  batches.emplace_back("humanoid_floating", makeBatch(abdyn::loadUrdf(dir + "/models/humanoid.urdf", floating)));
  for (auto& [label, b] : batches) {
    benchmark::RegisterBenchmark(("Loop/" + label).c_str(), loop, &b)->Unit(benchmark::kMillisecond)->UseRealTime();
    benchmark::RegisterBenchmark(("Batch/" + label).c_str(), batch, &b)
        ->ArgName("threads")->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
  }
  benchmark::Initialize(&rest_argc, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
