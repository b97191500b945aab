#pragma once
// The thread and pack structure shared by the batched calls (batch.cpp) and the batched rollouts
// (rollout_batch.cpp): a BatchWorkspace's state, its threads taking chunks of packs of W rows from a
// shared counter, the failure of the lowest failing row rethrown with its row, and the process-wide
// workspace that the calls taking a thread count share.

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "abdyn/algorithms/batch.hpp"
#include "abdyn/error.hpp"
#include "abdyn/integrators/runge_kutta4.hpp"
#include "algorithms/pack_dynamics.hpp"
#include "algorithms/thread_pool.hpp"

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

/// Rethrows the failure with the lowest row among `count` threads' or blocks' failures (errors[i] with
/// failed_row[i]; no failure: a null errors[i]).
inline void rethrowFirst(const std::exception_ptr* errors, const Eigen::Index* failed_row, int count, const char* function) {
  int first = -1;
  for (int i = 0; i < count; ++i) {
    if (errors[i] && (first < 0 || failed_row[i] < failed_row[first])) first = i;
  }
  if (first >= 0) rethrowForRow(errors[first], function, failed_row[first]);
}

/// The single-state ABA's error for a pack's failing lane (ArticulatedStep's message).
[[noreturn]] inline void throwSingularPack(const Model& model, const PackFailure& failure, const char* function) {
  throw Error(std::string(function) + ": joint '" + model.joint(failure.body).name + "' of model '" + model.name() +
              "' has no articulated inertia to move (S^T IA S = " + std::to_string(failure.pivot) +
              "): the mass matrix is singular (e.g. a massless body whose motion another joint duplicates)");
}

/// One thread's rollout state (rolloutBatch), built by its first rollout: each lane's run and Runge-Kutta
/// stages.
struct RolloutLanes {
  RolloutLanes(const Model& model, int lanes) {
    for (int l = 0; l < lanes; ++l) {
      q.emplace_back(model.nq());
      v.emplace_back(model.nv());
      stages.emplace_back(model);
    }
  }
  std::vector<Eigen::VectorXd> q, v;              // per lane: the run's state
  std::vector<detail::RungeKutta4Stages> stages;  // per lane
};

/// One thread's share of a BatchWorkspace: the pack kernels' workspace, a q for the checks and the
/// rollouts' lanes.
struct BatchThreadWorkspace {
  explicit BatchThreadWorkspace(const Model& model) : pack(model), q(model.nq()) {}
  PackWorkspace pack;
  Eigen::VectorXd q;
  std::unique_ptr<RolloutLanes> rollout;  // null until the first rolloutBatch on this workspace
};

/// A BatchWorkspace's state: a workspace per thread, the workers, and a failure slot per thread.
struct BatchWorkspaceImpl {
  BatchWorkspaceImpl(const Model& model, int threads)
      : model_key(model.structureKey()),
        parameter_key(model.parameterKey()),
        errors(static_cast<std::size_t>(threads)),
        failed_row(static_cast<std::size_t>(threads), -1),
        pool(threads - 1) {
    lanes.reserve(static_cast<std::size_t>(threads));
    for (int t = 0; t < threads; ++t) lanes.emplace_back(model);
  }
  std::uint64_t model_key;
  std::uint64_t parameter_key;  // the kernels read the parameters copied when the workspace was built
  std::vector<BatchThreadWorkspace> lanes;  // thread t's
  std::vector<std::exception_ptr> errors;
  std::vector<Eigen::Index> failed_row;
  // The next chunk of rows a thread takes (runWorkspace), on a cache line of its own: the threads write
  // it, and the fields above, which they read, stay unshared.
  alignas(64) std::atomic<Eigen::Index> next_chunk{0};
  char pad[64 - sizeof(std::atomic<Eigen::Index>)];
  ThreadPool pool;  // last: its workers stop before the workspaces they use go
};

/// Throws unless `workspace` was built for `model` (its structure and parameters).
void checkWorkspace(const Model& model, BatchWorkspace& workspace, const char* function);

/// runPacks over the n rows on at most `threads` of the workspace's threads, which take chunks of packs in
/// row order from a shared counter: a thread that the system delays leaves its chunks to the others
/// instead of holding up the call. Chunks start at multiples of W, so every call makes the same packs.
/// A chunk is an eighth of a thread's even share (at least one pack): few enough that handing them out
/// costs little against the work, enough that a late thread's share is taken by the others. A worker
/// that arrives after the calling thread has taken the last chunk does nothing (ThreadPool::run).
/// Rethrows the failure of the lowest failing row.
template <class Pack>
void runWorkspace(BatchWorkspace& workspace, Eigen::Index n, int threads, const char* function, const Pack& pack) {
  BatchWorkspaceImpl& work = workspace.impl();
  const Eigen::Index W = workspace.lanes(), packs = (n + W - 1) / W;
  threads = static_cast<int>(std::min<Eigen::Index>({threads, workspace.threads(), std::max<Eigen::Index>(packs, 1)}));
  const Eigen::Index chunk = std::max<Eigen::Index>(1, packs / (8 * threads)) * W, chunks = (n + chunk - 1) / chunk;
  for (int t = 0; t < threads; ++t) work.errors[static_cast<std::size_t>(t)] = nullptr;
  work.next_chunk.store(0, std::memory_order_relaxed);
  work.pool.run(threads, [&](int t) {
    const auto slot = static_cast<std::size_t>(t);
    Eigen::Index row = 0;
    try {
      // A thread stops at its first failure; every chunk below it was taken earlier and is finished by its
      // thread, so the lowest failing row among the threads' first failures is the batch's lowest.
      for (Eigen::Index c = work.next_chunk.fetch_add(1, std::memory_order_relaxed); c < chunks;
           c = work.next_chunk.fetch_add(1, std::memory_order_relaxed)) {
        runPacks(work.lanes[slot], c * chunk, std::min(n, (c + 1) * chunk), pack, row);
      }
    } catch (...) {
      work.errors[slot] = std::current_exception();
      work.failed_row[slot] = row;
    }
  });
  rethrowFirst(work.errors.data(), work.failed_row.data(), threads, function);
}

/// The workspace of a batched call that takes a thread count: the process's shared one, kept between
/// calls, when no other call holds it (built or rebuilt when the model, its parameters or the instruction
/// set change, or more threads are asked for), else one built for this call alone. Held for the lease's
/// life.
class SharedWorkspaceLease {
 public:
  /// A workspace for `model` with at least batchThreads(threads, any) threads.
  SharedWorkspaceLease(const Model& model, int threads);
  BatchWorkspace& workspace() { return *workspace_; }

 private:
  std::unique_lock<std::mutex> lock_;
  std::unique_ptr<BatchWorkspace> own_;
  BatchWorkspace* workspace_ = nullptr;
};

}  // namespace abdyn::internal
