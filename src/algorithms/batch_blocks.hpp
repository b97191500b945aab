#pragma once
// The thread and pack structure shared by the batched calls (batch.cpp) and the batched rollouts
// (rollout_batch.cpp): rows split into contiguous blocks, one per thread, each block in packs of W rows, and
// the failure of the lowest failing row rethrown with its row.

#include <algorithm>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "abdyn/algorithms/batch.hpp"
#include "abdyn/error.hpp"
#include "algorithms/pack_dynamics.hpp"

namespace abdyn::internal {

/// Rethrows a state's failure prefixed with the function and the state's row.
[[noreturn]] inline void rethrowForRow(const std::exception_ptr& error, const char* function, Eigen::Index row) {
  const std::string prefix = std::string("abdyn::") + function + ": state " + std::to_string(row) + ": ";
  try {
    std::rethrow_exception(error);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(prefix + e.what());
  } catch (const Error& e) {
    throw Error(prefix + e.what());
  }
}

/// Runs pack(workspace, k, count, row) over rows [begin, end) in packs of W; `pack` sets `row` to the state
/// it works on before a check or kernel that may throw.
template <class Workspace, class Pack>
void runPacks(Workspace& work, Eigen::Index begin, Eigen::Index end, const Pack& pack, Eigen::Index& row) {
  const int W = work.pack.lanes();
  for (Eigen::Index k = begin; k < end; k += W) {
    row = k;
    pack(work, k, static_cast<int>(std::min<Eigen::Index>(W, end - k)), row);
  }
}

/// Block b of `blocks` contiguous blocks of [0, n): rows [begin, end), the first n % blocks blocks one row longer.
inline void blockRows(Eigen::Index n, int blocks, int b, Eigen::Index& begin, Eigen::Index& end) {
  const Eigen::Index base = n / blocks, extra = n % blocks;
  begin = b * base + std::min<Eigen::Index>(b, extra);
  end = begin + base + (b < extra ? 1 : 0);
}

/// Rethrows the failure with the lowest row among `count` threads' or blocks' failures (errors[i] with
/// failed_row[i]; no failure: a null errors[i]).
inline void rethrowFirst(const std::exception_ptr* errors, const Eigen::Index* failed_row, int count, const char* function) {
  int first = -1;
  for (int i = 0; i < count; ++i) {
    if (errors[i] && (first < 0 || failed_row[i] < failed_row[first])) first = i;
  }
  if (first >= 0) rethrowForRow(errors[first], function, failed_row[first]);
}

/// runPacks on `threads` contiguous blocks of [0, n), one Workspace(model) per block (its `pack` a
/// PackWorkspace), each on a thread started for the call; the calling thread takes block 0. Rethrows the
/// failure of the lowest failing row.
template <class Workspace, class Pack>
void runBatch(const Model& model, Eigen::Index n, int threads, const char* function, const Pack& pack) {
  const int blocks = batchThreads(threads, n);
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(blocks));
  std::vector<Eigen::Index> failed_row(static_cast<std::size_t>(blocks), -1);
  auto run_block = [&](int b) {
    Eigen::Index begin = 0, end = 0;
    blockRows(n, blocks, b, begin, end);
    Eigen::Index row = begin;
    try {
      Workspace work(model);
      runPacks(work, begin, end, pack, row);
    } catch (...) {
      errors[static_cast<std::size_t>(b)] = std::current_exception();
      failed_row[static_cast<std::size_t>(b)] = row;
    }
  };
  std::vector<std::thread> workers;
  workers.reserve(static_cast<std::size_t>(blocks - 1));
  for (int b = 1; b < blocks; ++b) workers.emplace_back(run_block, b);
  run_block(0);
  for (std::thread& t : workers) t.join();
  rethrowFirst(errors.data(), failed_row.data(), blocks, function);
}

/// The single-state ABA's error for a pack's failing lane (ArticulatedStep's message).
[[noreturn]] inline void throwSingularPack(const Model& model, const PackFailure& failure, const char* function) {
  throw Error(std::string(function) + ": joint '" + model.joint(failure.body).name + "' of model '" + model.name() +
              "' has no articulated inertia to move (S^T IA S = " + std::to_string(failure.pivot) +
              "): the mass matrix is singular (e.g. a massless body whose motion another joint duplicates)");
}

}  // namespace abdyn::internal
