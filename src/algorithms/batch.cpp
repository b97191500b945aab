#include "abdyn/algorithms/batch.hpp"

#include <atomic>
#include <exception>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include <hwy/targets.h>

#include "abdyn/checked_mode.hpp"
#include "abdyn/error.hpp"
#include "algorithms/batch_blocks.hpp"
#include "algorithms/pack_dynamics.hpp"
#include "algorithms/thread_pool.hpp"
#include "internal/checks.hpp"

namespace abdyn {

namespace internal {
/// One thread's share of a BatchWorkspace: the pack kernels' workspace and a q for the checks.
struct BatchThreadWorkspace {
  explicit BatchThreadWorkspace(const Model& model) : pack(model), q(model.nq()) {}
  PackWorkspace pack;
  Eigen::VectorXd q;
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
  std::atomic<Eigen::Index> next_chunk{0};  // the next chunk of rows a thread takes (runWorkspace)
  ThreadPool pool;  // last: its workers stop before the workspaces they use go
};
}  // namespace internal

namespace {

void checkShape(const char* function, const char* argument, Eigen::Index rows, Eigen::Index cols, Eigen::Index expected_rows,
                Eigen::Index expected_cols) {
  if (rows != expected_rows || cols != expected_cols) {
    throw InvalidArgument(std::string("abdyn::") + function + ": '" + argument + "' must be " +
                          std::to_string(expected_rows) + " x " + std::to_string(expected_cols) + ", got " +
                          std::to_string(rows) + " x " + std::to_string(cols));
  }
}

/// runPacks over the n rows on the workspace's threads, which take chunks of kChunkPacks packs in row order
/// from a shared counter: a thread that the system delays leaves its chunks to the others instead of
/// holding up the call. Chunks start at multiples of W, so every call makes the same packs.
template <class Pack>
void runWorkspace(const Model& model, BatchWorkspace& workspace, Eigen::Index n, const char* function, const Pack& pack) {
  internal::BatchWorkspaceImpl& work = workspace.impl();
  if (work.model_key != model.structureKey()) {
    throw InvalidArgument(std::string("abdyn::") + function + ": argument 'workspace' was built for another model, not '" +
                          model.name() + "'");
  }
  if (work.parameter_key != model.parameterKey()) {
    throw InvalidArgument(std::string("abdyn::") + function + ": argument 'workspace' was built for a model with other " +
                          "parameters (gravity, inertias, joint axes, damping, armature or springs) than '" + model.name() +
                          "': build a BatchWorkspace for this model");
  }
  constexpr Eigen::Index kChunkPacks = 4;
  const Eigen::Index chunk = kChunkPacks * workspace.lanes();
  const Eigen::Index chunks = (n + chunk - 1) / chunk;
  const int threads = static_cast<int>(std::min<Eigen::Index>(workspace.threads(), std::max<Eigen::Index>(chunks, 1)));
  work.next_chunk.store(0, std::memory_order_relaxed);
  work.pool.run(threads, [&](int t) {
    const auto slot = static_cast<std::size_t>(t);
    work.errors[slot] = nullptr;
    Eigen::Index row = 0;
    try {
      // A thread stops at its first failure; every chunk below it was taken earlier and is finished by its
      // thread, so the lowest failing row among the threads' first failures is the batch's lowest.
      for (Eigen::Index c = work.next_chunk.fetch_add(1, std::memory_order_relaxed); c < chunks;
           c = work.next_chunk.fetch_add(1, std::memory_order_relaxed)) {
        internal::runPacks(work.lanes[slot], c * chunk, std::min(n, (c + 1) * chunk), pack, row);
      }
    } catch (...) {
      work.errors[slot] = std::current_exception();
      work.failed_row[slot] = row;
    }
  });
  internal::rethrowFirst(work.errors.data(), work.failed_row.data(), threads, function);
}

/// Rows [k, k + count) of X into a pack x[j * W + l]; lanes from count on repeat the last row. The pack is
/// written in order and each row read in order, W streams at a time.
void gather(const Eigen::Ref<const RowMatrixXd>& X, Eigen::Index k, int count, int W, double* x) {
  const double* rows[internal::kPackLanesMax];
  for (int l = 0; l < W; ++l) rows[l] = X.row(k + std::min(l, count - 1)).data();
  for (Eigen::Index j = 0; j < X.cols(); ++j) {
    for (int l = 0; l < W; ++l) x[j * W + l] = rows[l][j];
  }
}

/// The pack's first count lanes of y[j * W + l] into rows [k, k + count) of Y, in gather's order.
void scatter(const double* y, int count, int W, Eigen::Index k, Eigen::Ref<RowMatrixXd> Y) {
  double* rows[internal::kPackLanesMax];
  for (int l = 0; l < count; ++l) rows[l] = Y.row(k + l).data();
  for (Eigen::Index j = 0; j < Y.cols(); ++j) {
    for (int l = 0; l < count; ++l) rows[l][j] = y[j * W + l];
  }
}

/// In checked mode, the single-state calls' checks of rows [k, k + count): finite entries, unit quaternions.
/// `row` follows the state checked, for the failure's message.
void checkRows(const Model& model, const Eigen::Ref<const RowMatrixXd>* const* rows, const char* const* names, int inputs,
               Eigen::Index k, int count, const char* function, internal::BatchThreadWorkspace& work, Eigen::Index& row) {
  if (!checkedMode()) return;
  for (row = k; row < k + count; ++row) {
    work.q = rows[0]->row(row).transpose();
    internal::checkConfiguration(model, work.q, function);
    for (int input = 1; input < inputs; ++input) internal::checkVector(rows[input]->row(row), model.nv(), function, names[input]);
  }
  row = k;
}


void checkForward(const Model& model, const Eigen::Ref<const RowMatrixXd>& Q, const Eigen::Ref<const RowMatrixXd>& V,
                  const Eigen::Ref<const RowMatrixXd>& TAU, const Eigen::Ref<RowMatrixXd>& QDD, const DynamicsOptions& options) {
  const char* fn = "forwardDynamicsBatch";
  internal::checkDynamics(model, fn);
  const Eigen::Index n = Q.rows();
  checkShape(fn, "Q", Q.rows(), Q.cols(), n, model.nq());
  checkShape(fn, "V", V.rows(), V.cols(), n, model.nv());
  checkShape(fn, "TAU", TAU.rows(), TAU.cols(), n, model.nv());
  checkShape(fn, "QDD", QDD.rows(), QDD.cols(), n, model.nv());
  internal::checkDynamicsOptions(options, "abdyn::forwardDynamicsBatch");
}

void checkInverse(const Model& model, const Eigen::Ref<const RowMatrixXd>& Q, const Eigen::Ref<const RowMatrixXd>& V,
                  const Eigen::Ref<const RowMatrixXd>& QDD, const Eigen::Ref<RowMatrixXd>& TAU) {
  const char* fn = "inverseDynamicsBatch";
  internal::checkDynamics(model, fn);
  const Eigen::Index n = Q.rows();
  checkShape(fn, "Q", Q.rows(), Q.cols(), n, model.nq());
  checkShape(fn, "V", V.rows(), V.cols(), n, model.nv());
  checkShape(fn, "QDD", QDD.rows(), QDD.cols(), n, model.nv());
  checkShape(fn, "TAU", TAU.rows(), TAU.cols(), n, model.nv());
}

void checkMass(const Model& model, const Eigen::Ref<const RowMatrixXd>& Q, const Eigen::Ref<RowMatrixXd>& M,
               const DynamicsOptions& options) {
  const char* fn = "massMatrixBatch";
  internal::checkDynamics(model, fn);
  checkShape(fn, "Q", Q.rows(), Q.cols(), Q.rows(), model.nq());
  checkShape(fn, "M", M.rows(), M.cols(), Q.rows(), model.nv() * model.nv());
  internal::checkDynamicsOptions(options, "abdyn::massMatrixBatch");
}

/// The ABA of one pack: rows [k, k + count) of Q, V, TAU into QDD.
auto abaPacks(const Model& model, const Eigen::Ref<const RowMatrixXd>& Q, const Eigen::Ref<const RowMatrixXd>& V,
              const Eigen::Ref<const RowMatrixXd>& TAU, Eigen::Ref<RowMatrixXd>& QDD, const DynamicsOptions& options) {
  return [&](internal::BatchThreadWorkspace& work, Eigen::Index k, int count, Eigen::Index& row) {
    const Eigen::Ref<const RowMatrixXd>* inputs[] = {&Q, &V, &TAU};
    const char* const names[] = {"q", "v", "tau"};
    checkRows(model, inputs, names, 3, k, count, "abdyn::forwardDynamics", work, row);
    internal::PackWorkspace& pack = work.pack;
    const int W = pack.lanes();
    gather(Q, k, count, W, pack.q());
    gather(V, k, count, W, pack.v());
    gather(TAU, k, count, W, pack.x());
    internal::PackFailure failure;
    if (!pack.kernels().aba(pack.model(), options, pack.work(), pack.q(), pack.v(), pack.x(), pack.y(), &failure)) {
      row = k + failure.lane;
      internal::throwSingularPack(model, failure, "abdyn::forwardDynamics");
    }
    scatter(pack.y(), count, W, k, QDD);
  };
}

/// The RNEA of one pack: rows [k, k + count) of Q, V, QDD into TAU.
auto rneaPacks(const Model& model, const Eigen::Ref<const RowMatrixXd>& Q, const Eigen::Ref<const RowMatrixXd>& V,
               const Eigen::Ref<const RowMatrixXd>& QDD, Eigen::Ref<RowMatrixXd>& TAU, const DynamicsOptions& options) {
  return [&](internal::BatchThreadWorkspace& work, Eigen::Index k, int count, Eigen::Index& row) {
    const Eigen::Ref<const RowMatrixXd>* inputs[] = {&Q, &V, &QDD};
    const char* const names[] = {"q", "v", "qdd"};
    checkRows(model, inputs, names, 3, k, count, "abdyn::inverseDynamics", work, row);
    internal::PackWorkspace& pack = work.pack;
    const int W = pack.lanes();
    gather(Q, k, count, W, pack.q());
    gather(V, k, count, W, pack.v());
    gather(QDD, k, count, W, pack.x());
    pack.kernels().rnea(pack.model(), options, pack.work(), pack.q(), pack.v(), pack.x(), pack.y());
    scatter(pack.y(), count, W, k, TAU);
  };
}

/// The CRBA of one pack: rows [k, k + count) of Q into M.
auto crbaPacks(const Model& model, const Eigen::Ref<const RowMatrixXd>& Q, Eigen::Ref<RowMatrixXd>& M,
               const DynamicsOptions& options) {
  return [&](internal::BatchThreadWorkspace& work, Eigen::Index k, int count, Eigen::Index& row) {
    const Eigen::Ref<const RowMatrixXd>* inputs[] = {&Q};
    const char* const names[] = {"q"};
    checkRows(model, inputs, names, 1, k, count, "abdyn::massMatrix", work, row);
    internal::PackWorkspace& pack = work.pack;
    const int W = pack.lanes();
    gather(Q, k, count, W, pack.q());
    pack.kernels().crba(pack.model(), options, pack.work(), pack.q(), pack.y());
    scatter(pack.y(), count, W, k, M);
  };
}

}  // namespace

BatchWorkspace::BatchWorkspace(const Model& model, int threads)
    : impl_(std::make_unique<internal::BatchWorkspaceImpl>(model, batchThreads(threads, std::numeric_limits<Eigen::Index>::max()))) {}
BatchWorkspace::~BatchWorkspace() = default;
BatchWorkspace::BatchWorkspace(BatchWorkspace&&) noexcept = default;
BatchWorkspace& BatchWorkspace::operator=(BatchWorkspace&&) noexcept = default;
int BatchWorkspace::lanes() const { return impl_->lanes.front().pack.lanes(); }
int BatchWorkspace::threads() const { return static_cast<int>(impl_->lanes.size()); }

int batchThreads(int threads, Eigen::Index states) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return static_cast<int>(std::max<Eigen::Index>(1, std::min<Eigen::Index>(threads, states)));
}

void setBatchSimd(BatchSimd limit) {
  if (limit != BatchSimd::Widest && limit != BatchSimd::Avx2 && limit != BatchSimd::Sse4 && limit != BatchSimd::Portable) {
    throw InvalidArgument("abdyn::setBatchSimd: 'limit' is not a BatchSimd value (" +
                          std::to_string(static_cast<int>(limit)) + ")");
  }
  hwy::SetSupportedTargetsForTest(0);  // the CPU's own targets
  int64_t allowed = hwy::SupportedTargets();
  // Highway's targets are bits, the wider the lower.
  if (limit == BatchSimd::Avx2) allowed &= ~(HWY_AVX2 - 1);
  if (limit == BatchSimd::Sse4) allowed &= ~(HWY_SSE4 - 1);
  if (limit == BatchSimd::Portable) allowed &= HWY_EMU128 | HWY_SCALAR;
  if (limit != BatchSimd::Widest) hwy::SetSupportedTargetsForTest(allowed);
  hwy::GetChosenTarget().Update(hwy::SupportedTargets());
}

const char* batchSimdName() { return internal::packKernels().name; }

int batchLanes() { return internal::packKernels().lanes; }

void forwardDynamicsBatch(const Model& model, const Eigen::Ref<const RowMatrixXd>& Q, const Eigen::Ref<const RowMatrixXd>& V,
                          const Eigen::Ref<const RowMatrixXd>& TAU, Eigen::Ref<RowMatrixXd> QDD, int threads,
                          const DynamicsOptions& options) {
  checkForward(model, Q, V, TAU, QDD, options);
  BatchWorkspace workspace(model, batchThreads(threads, Q.rows()));
  runWorkspace(model, workspace, Q.rows(), "forwardDynamicsBatch", abaPacks(model, Q, V, TAU, QDD, options));
}

void forwardDynamicsBatch(const Model& model, BatchWorkspace& workspace, const Eigen::Ref<const RowMatrixXd>& Q,
                          const Eigen::Ref<const RowMatrixXd>& V, const Eigen::Ref<const RowMatrixXd>& TAU,
                          Eigen::Ref<RowMatrixXd> QDD, const DynamicsOptions& options) {
  checkForward(model, Q, V, TAU, QDD, options);
  runWorkspace(model, workspace, Q.rows(), "forwardDynamicsBatch", abaPacks(model, Q, V, TAU, QDD, options));
}

void inverseDynamicsBatch(const Model& model, const Eigen::Ref<const RowMatrixXd>& Q, const Eigen::Ref<const RowMatrixXd>& V,
                          const Eigen::Ref<const RowMatrixXd>& QDD, Eigen::Ref<RowMatrixXd> TAU, int threads,
                          const DynamicsOptions& options) {
  checkInverse(model, Q, V, QDD, TAU);
  BatchWorkspace workspace(model, batchThreads(threads, Q.rows()));
  runWorkspace(model, workspace, Q.rows(), "inverseDynamicsBatch", rneaPacks(model, Q, V, QDD, TAU, options));
}

void inverseDynamicsBatch(const Model& model, BatchWorkspace& workspace, const Eigen::Ref<const RowMatrixXd>& Q,
                          const Eigen::Ref<const RowMatrixXd>& V, const Eigen::Ref<const RowMatrixXd>& QDD,
                          Eigen::Ref<RowMatrixXd> TAU, const DynamicsOptions& options) {
  checkInverse(model, Q, V, QDD, TAU);
  runWorkspace(model, workspace, Q.rows(), "inverseDynamicsBatch", rneaPacks(model, Q, V, QDD, TAU, options));
}

void massMatrixBatch(const Model& model, const Eigen::Ref<const RowMatrixXd>& Q, Eigen::Ref<RowMatrixXd> M, int threads,
                     const DynamicsOptions& options) {
  checkMass(model, Q, M, options);
  BatchWorkspace workspace(model, batchThreads(threads, Q.rows()));
  runWorkspace(model, workspace, Q.rows(), "massMatrixBatch", crbaPacks(model, Q, M, options));
}

void massMatrixBatch(const Model& model, BatchWorkspace& workspace, const Eigen::Ref<const RowMatrixXd>& Q,
                     Eigen::Ref<RowMatrixXd> M, const DynamicsOptions& options) {
  checkMass(model, Q, M, options);
  runWorkspace(model, workspace, Q.rows(), "massMatrixBatch", crbaPacks(model, Q, M, options));
}

}  // namespace abdyn
