#include "abdyn/algorithms/batch.hpp"

#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#define ABDYN_HAVE_GETPID 1
#endif

#include <hwy/targets.h>

#include "abdyn/checked_mode.hpp"
#include "abdyn/error.hpp"
#include "algorithms/batch_blocks.hpp"
#include "algorithms/pack_dynamics.hpp"
#include "internal/checks.hpp"

namespace abdyn {

namespace internal {

void checkWorkspace(const Model& model, BatchWorkspace& workspace, const char* function) {
  const BatchWorkspaceImpl& work = workspace.impl();
  if (work.model_key != model.structureKey()) {
    throw InvalidArgument(std::string("abdyn::") + function + ": argument 'workspace' was built for another model, not '" +
                          model.name() + "'");
  }
  if (work.parameter_key != model.parameterKey()) {
    throw InvalidArgument(std::string("abdyn::") + function + ": argument 'workspace' was built for a model with other " +
                          "parameters (gravity, inertias, joint axes, damping, armature or springs) than '" + model.name() +
                          "': build a BatchWorkspace for this model");
  }
}

namespace {

/// The process's shared workspace and the lock that leases it (SharedWorkspaceLease).
struct SharedWorkspace {
  std::mutex mutex;
  std::unique_ptr<BatchWorkspace> workspace;
#ifdef ABDYN_HAVE_GETPID
  pid_t process = 0;  // the process that built it: a child forked since has its memory, not its threads
#endif
};

SharedWorkspace& sharedWorkspace() {
  static SharedWorkspace shared;
  return shared;
}

}  // namespace

SharedWorkspaceLease::SharedWorkspaceLease(const Model& model, int threads)
    : lock_(sharedWorkspace().mutex, std::try_to_lock) {
  threads = batchThreads(threads, std::numeric_limits<Eigen::Index>::max());
  if (!lock_.owns_lock()) {  // another call holds the shared one: a workspace for this call alone
    own_ = std::make_unique<BatchWorkspace>(model, threads);
    workspace_ = own_.get();
    return;
  }
  SharedWorkspace& shared = sharedWorkspace();
  std::unique_ptr<BatchWorkspace>& kept = shared.workspace;
#ifdef ABDYN_HAVE_GETPID
  if (kept && shared.process != getpid()) (void)kept.release();  // its threads were not forked: leave it unjoined
  shared.process = getpid();
#endif
  if (!kept || kept->impl().model_key != model.structureKey() || kept->impl().parameter_key != model.parameterKey() ||
      &kept->impl().lanes.front().pack.kernels() != &packKernels() || kept->threads() < threads) {
    const int keep = kept ? std::max(threads, kept->threads()) : threads;
    kept.reset();  // its threads stop before the new ones start
    kept = std::make_unique<BatchWorkspace>(model, keep);
  }
  workspace_ = kept.get();
}

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
  internal::SharedWorkspaceLease lease(model, threads);
  internal::runWorkspace(lease.workspace(), Q.rows(), batchThreads(threads, Q.rows()), "forwardDynamicsBatch", abaPacks(model, Q, V, TAU, QDD, options));
}

void forwardDynamicsBatch(const Model& model, BatchWorkspace& workspace, const Eigen::Ref<const RowMatrixXd>& Q,
                          const Eigen::Ref<const RowMatrixXd>& V, const Eigen::Ref<const RowMatrixXd>& TAU,
                          Eigen::Ref<RowMatrixXd> QDD, const DynamicsOptions& options) {
  checkForward(model, Q, V, TAU, QDD, options);
  internal::checkWorkspace(model, workspace, "forwardDynamicsBatch");
  internal::runWorkspace(workspace, Q.rows(), workspace.threads(), "forwardDynamicsBatch", abaPacks(model, Q, V, TAU, QDD, options));
}

void inverseDynamicsBatch(const Model& model, const Eigen::Ref<const RowMatrixXd>& Q, const Eigen::Ref<const RowMatrixXd>& V,
                          const Eigen::Ref<const RowMatrixXd>& QDD, Eigen::Ref<RowMatrixXd> TAU, int threads,
                          const DynamicsOptions& options) {
  checkInverse(model, Q, V, QDD, TAU);
  internal::SharedWorkspaceLease lease(model, threads);
  internal::runWorkspace(lease.workspace(), Q.rows(), batchThreads(threads, Q.rows()), "inverseDynamicsBatch", rneaPacks(model, Q, V, QDD, TAU, options));
}

void inverseDynamicsBatch(const Model& model, BatchWorkspace& workspace, const Eigen::Ref<const RowMatrixXd>& Q,
                          const Eigen::Ref<const RowMatrixXd>& V, const Eigen::Ref<const RowMatrixXd>& QDD,
                          Eigen::Ref<RowMatrixXd> TAU, const DynamicsOptions& options) {
  checkInverse(model, Q, V, QDD, TAU);
  internal::checkWorkspace(model, workspace, "inverseDynamicsBatch");
  internal::runWorkspace(workspace, Q.rows(), workspace.threads(), "inverseDynamicsBatch", rneaPacks(model, Q, V, QDD, TAU, options));
}

void massMatrixBatch(const Model& model, const Eigen::Ref<const RowMatrixXd>& Q, Eigen::Ref<RowMatrixXd> M, int threads,
                     const DynamicsOptions& options) {
  checkMass(model, Q, M, options);
  internal::SharedWorkspaceLease lease(model, threads);
  internal::runWorkspace(lease.workspace(), Q.rows(), batchThreads(threads, Q.rows()), "massMatrixBatch", crbaPacks(model, Q, M, options));
}

void massMatrixBatch(const Model& model, BatchWorkspace& workspace, const Eigen::Ref<const RowMatrixXd>& Q,
                     Eigen::Ref<RowMatrixXd> M, const DynamicsOptions& options) {
  checkMass(model, Q, M, options);
  internal::checkWorkspace(model, workspace, "massMatrixBatch");
  internal::runWorkspace(workspace, Q.rows(), workspace.threads(), "massMatrixBatch", crbaPacks(model, Q, M, options));
}

}  // namespace abdyn
