// Batched dynamics (batch.hpp) against the loop of single-state calls over the same states:
//   bench_batch [--source DIR] [Google Benchmark flags]
// Each iteration computes one algorithm for all kStates states (rows of one N x nq array), so items/s is
// states/s (CPU time of the calling thread). Single/ALG/MODEL is the loop over one Data; Batch/ALG/MODEL/simd:S
// the batched call on one thread with the instruction set capped at S (0 widest, 1 AVX2, 2 SSE4, 3 portable;
// setBatchSimd); Threads/ALG/MODEL/threads:T the batched call on T threads, in wall-clock time. Both call with a
// BatchWorkspace built once (its threads kept between calls), as a control loop or a training step would.
// Overhead/threads:T: the RNEA of the iiwa's first 16 states (two AVX-512 packs, a few hundred ns of work)
// with a kept workspace of T threads, wall-clock time: T = 2 against T = 1 is the fixed cost of a parallel
// call (waking the worker, handing out chunks, the join). Convenience/ALG/iiwa/threads:T: the calls that take
// a thread count (the process's shared workspace). Rollout/... (below) rollouts, stepped alone or in packs.

#include <random>

#include <benchmark/benchmark.h>

#include "abdyn/abdyn.hpp"
#include "bench_common.hpp"

namespace {

constexpr Eigen::Index kStates = 1024;  // a few hundred kB of states: in cache, as an MPC or RL batch is

enum class Algorithm { Aba, Rnea, Crba };

struct Batch {
  abdyn::Model model;
  abdyn::RowMatrixXd Q, V, W, OUT, M;
};

Batch makeBatch(const abdyn::Model& model) {
  std::mt19937 rng(42);
  Batch b{model, abdyn::RowMatrixXd(kStates, model.nq()), abdyn::RowMatrixXd(kStates, model.nv()),
          abdyn::RowMatrixXd(kStates, model.nv()), abdyn::RowMatrixXd(kStates, model.nv()),
          abdyn::RowMatrixXd(kStates, model.nv() * model.nv())};
  for (Eigen::Index k = 0; k < kStates; ++k) {
    b.Q.row(k) = abdyn::randomConfiguration(model, rng).transpose();
    b.V.row(k) = abdyn_bench::randomVector(rng, model.nv()).transpose();
    b.W.row(k) = abdyn_bench::randomVector(rng, model.nv()).transpose();
  }
  return b;
}

void single(benchmark::State& state, Batch* b, Algorithm algorithm) {
  abdyn::Data data(b->model);
  Eigen::VectorXd q(b->model.nq()), v(b->model.nv()), w(b->model.nv());
  for (auto _ : state) {
    for (Eigen::Index k = 0; k < kStates; ++k) {
      q = b->Q.row(k).transpose();
      v = b->V.row(k).transpose();
      w = b->W.row(k).transpose();
      switch (algorithm) {
        case Algorithm::Aba:
          b->OUT.row(k) = abdyn::forwardDynamics(b->model, data, q, v, w).transpose();
          break;
        case Algorithm::Rnea:
          b->OUT.row(k) = abdyn::inverseDynamics(b->model, data, q, v, w).transpose();
          break;
        case Algorithm::Crba:
          benchmark::DoNotOptimize(abdyn::massMatrix(b->model, data, q).data());
          break;
      }
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kStates);
}

void batch(benchmark::State& state, Batch* b, Algorithm algorithm) {
  abdyn::setBatchSimd(static_cast<abdyn::BatchSimd>(state.range(0)));
  state.SetLabel(abdyn::batchSimdName());
  abdyn::BatchWorkspace workspace(b->model, static_cast<int>(state.range(1)));
  for (auto _ : state) {
    switch (algorithm) {
      case Algorithm::Aba:
        abdyn::forwardDynamicsBatch(b->model, workspace, b->Q, b->V, b->W, b->OUT);
        break;
      case Algorithm::Rnea:
        abdyn::inverseDynamicsBatch(b->model, workspace, b->Q, b->V, b->W, b->OUT);
        break;
      case Algorithm::Crba:
        abdyn::massMatrixBatch(b->model, workspace, b->Q, b->M);
        break;
    }
    benchmark::ClobberMemory();
  }
  abdyn::setBatchSimd(abdyn::BatchSimd::Widest);
  state.SetItemsProcessed(state.iterations() * kStates);
}

void overhead(benchmark::State& state, Batch* b) {
  constexpr Eigen::Index kFew = 16;
  abdyn::BatchWorkspace workspace(b->model, static_cast<int>(state.range(0)));
  const abdyn::RowMatrixXd Q = b->Q.topRows(kFew), V = b->V.topRows(kFew), W = b->W.topRows(kFew);
  abdyn::RowMatrixXd out(kFew, b->model.nv());
  for (auto _ : state) {
    abdyn::inverseDynamicsBatch(b->model, workspace, Q, V, W, out);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kFew);
}

void convenience(benchmark::State& state, Batch* b, Algorithm algorithm) {
  const int threads = static_cast<int>(state.range(0));
  for (auto _ : state) {
    if (algorithm == Algorithm::Aba) {
      abdyn::forwardDynamicsBatch(b->model, b->Q, b->V, b->W, b->OUT, threads);
    } else {
      abdyn::inverseDynamicsBatch(b->model, b->Q, b->V, b->W, b->OUT, threads);
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kStates);
}

// Rollouts of kRuns runs of kSteps steps (h = 1 ms, zero joint forces, no contacts or limits), items/s
// = steps/s, wall-clock time: Rollout/MODEL/simulator, abdyn::rollout (a Simulator per thread, each run
// stepped alone with the single-state ABA); Rollout/MODEL/euler_loop, SemiImplicitEuler::step run by run
// on the calling thread; Rollout/MODEL/batch, rolloutBatch (semi-implicit Euler, W runs per pack).
constexpr int kRuns = 64, kSteps = 50;
constexpr double kStep = 1e-3;

enum class Roller { Simulator, EulerLoop, Batch };

void rollouts(benchmark::State& state, Batch* b, Roller roller) {
  const abdyn::Model& model = b->model;
  const int threads = static_cast<int>(state.range(0)), nq = model.nq(), nv = model.nv();
  const abdyn::RowMatrixXd q0 = b->Q.topRows(kRuns), v0 = abdyn::RowMatrixXd::Zero(kRuns, nv);
  const abdyn::RowMatrixXd tau = abdyn::RowMatrixXd::Zero(kRuns, kSteps * nv);
  abdyn::RowMatrixXd Q(kRuns, (kSteps + 1) * nq), V(kRuns, (kSteps + 1) * nv);
  abdyn::SimulatorSettings settings;
  settings.energy = false;
  abdyn::Data data(model);
  abdyn::SemiImplicitEuler euler(model);
  Eigen::VectorXd q(nq), v(nv);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(nv);
  for (auto _ : state) {
    switch (roller) {
      case Roller::Simulator:
        abdyn::rollout(model, settings, q0, v0, tau, kSteps, kStep, threads, Q, V);
        break;
      case Roller::EulerLoop:
        for (int r = 0; r < kRuns; ++r) {
          q = q0.row(r).transpose();
          v = v0.row(r).transpose();
          for (int t = 0; t < kSteps; ++t) euler.step(model, data, q, v, zero, kStep);
          Q.row(r).tail(nq) = q.transpose();
        }
        break;
      case Roller::Batch:
        abdyn::rolloutBatch(model, abdyn::BatchIntegrator::SemiImplicitEuler, q0, v0, tau, kSteps, kStep, Q, V, threads);
        break;
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kRuns * kSteps);
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = ABDYN_SOURCE_DIR;
  std::vector<char*> rest = abdyn_bench::takeSourceArgument(argc, argv, dir);
  int rest_argc = static_cast<int>(rest.size());
  abdyn::logger()->set_level(spdlog::level::err);
  abdyn::UrdfOptions fixed, floating;
  fixed.accept_invalid_inertia = floating.accept_invalid_inertia = true;
  floating.floating_base = true;
  const std::string peers = dir + "/bench/models/", ours = dir + "/models/";
  static std::vector<std::pair<std::string, Batch>> batches;
  batches.emplace_back("iiwa", makeBatch(abdyn::loadUrdf(peers + "kuka_iiwa.urdf", fixed)));
  batches.emplace_back("panda", makeBatch(abdyn::loadUrdf(peers + "panda.urdf", fixed)));
  batches.emplace_back("quadruped_floating", makeBatch(abdyn::loadUrdf(ours + "quadruped.urdf", floating)));
  batches.emplace_back("humanoid_floating", makeBatch(abdyn::loadUrdf(ours + "humanoid.urdf", floating)));
  batches.emplace_back("talos_floating", makeBatch(abdyn::loadUrdf(peers + "talos_reduced.urdf", floating)));
  batches.emplace_back("chain_100", makeBatch(abdyn::loadUrdf(peers + "chain_100.urdf", fixed)));
  batches.emplace_back("tree_100", makeBatch(abdyn::loadUrdf(peers + "tree_100.urdf", fixed)));
  const std::pair<const char*, Algorithm> algorithms[] = {
      {"ABA", Algorithm::Aba}, {"RNEA", Algorithm::Rnea}, {"CRBA", Algorithm::Crba}};
  for (auto& [label, b] : batches) {
    for (const auto& [name, algorithm] : algorithms) {
      const std::string suffix = std::string(name) + "/" + label;
      benchmark::RegisterBenchmark(("Single/" + suffix).c_str(), single, &b, algorithm)->Unit(benchmark::kMicrosecond);
      benchmark::RegisterBenchmark(("Batch/" + suffix).c_str(), batch, &b, algorithm)
          ->ArgNames({"simd", "threads"})
          ->Args({0, 1})
          ->Args({1, 1})
          ->Unit(benchmark::kMicrosecond);
      // Threads against one: wall-clock time, the measure of a parallel speed-up.
      benchmark::RegisterBenchmark(("Threads/" + suffix).c_str(), batch, &b, algorithm)
          ->ArgNames({"simd", "threads"})
          ->Args({0, 1})
          ->Args({0, 2})
          ->Unit(benchmark::kMicrosecond)
          ->UseRealTime();
    }
  }
  Batch* iiwa = &batches.front().second;
  benchmark::RegisterBenchmark("Overhead/RNEA/iiwa", overhead, iiwa)->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime();
  for (const auto& [name, algorithm] : algorithms) {
    if (algorithm == Algorithm::Crba) continue;
    benchmark::RegisterBenchmark((std::string("Convenience/") + name + "/iiwa").c_str(), convenience, iiwa, algorithm)
        ->ArgName("threads")
        ->Arg(1)
        ->Arg(2)
        ->Unit(benchmark::kMicrosecond)
        ->UseRealTime();
  }
  for (auto& [label, b] : batches) {
    if (label != "iiwa" && label != "panda") continue;  // arms: explicit damping is stable at h = 1 ms
    const std::pair<const char*, Roller> rollers[] = {
        {"simulator", Roller::Simulator}, {"euler_loop", Roller::EulerLoop}, {"batch", Roller::Batch}};
    for (const auto& [name, roller] : rollers) {
      auto* bm = benchmark::RegisterBenchmark(("Rollout/" + label + "/" + name).c_str(), rollouts, &b, roller)
                     ->ArgName("threads")
                     ->Arg(1)
                     ->Unit(benchmark::kMillisecond)
                     ->UseRealTime();
      if (roller != Roller::EulerLoop) bm->Arg(2);
    }
  }
  benchmark::Initialize(&rest_argc, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
