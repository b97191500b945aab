#include "abdyn/algorithms/batch.hpp"

#include <exception>
#include <string>
#include <thread>
#include <vector>

#include <hwy/targets.h>

#include "abdyn/checked_mode.hpp"
#include "abdyn/error.hpp"
#include "algorithms/pack_dynamics.hpp"
#include "internal/checks.hpp"

namespace abdyn {

namespace internal {
/// A BatchWorkspace's state: the pack kernels' workspace and a q for the checks.
struct BatchWorkspaceImpl {
  explicit BatchWorkspaceImpl(const Model& model) : pack(model), q(model.nq()), model_key(model.structureKey()) {}
  PackWorkspace pack;
  Eigen::VectorXd q;
  std::uint64_t model_key;
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

/// Rethrows a state's failure prefixed with the function and the state's row.
[[noreturn]] void rethrowForRow(const std::exception_ptr& error, const char* function, Eigen::Index row) {
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
template <class Pack>
void runPacks(internal::BatchWorkspaceImpl& work, Eigen::Index begin, Eigen::Index end, const Pack& pack, Eigen::Index& row) {
  const int W = work.pack.lanes();
  for (Eigen::Index k = begin; k < end; k += W) {
    row = k;
    pack(work, k, static_cast<int>(std::min<Eigen::Index>(W, end - k)), row);
  }
}

/// runPacks on `threads` contiguous blocks of [0, n), one workspace per block; the calling thread takes block 0.
/// Rethrows the failure of the lowest failing row.
template <class Pack>
void runBatch(const Model& model, Eigen::Index n, int threads, const char* function, const Pack& pack) {
  const int blocks = batchThreads(threads, n);
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(blocks));
  std::vector<Eigen::Index> failed_row(static_cast<std::size_t>(blocks), -1);
  auto run_block = [&](int b) {
    // Block b holds rows [begin, end): the first n % blocks blocks get one row more.
    const Eigen::Index base = n / blocks, extra = n % blocks;
    const Eigen::Index begin = b * base + std::min<Eigen::Index>(b, extra);
    const Eigen::Index end = begin + base + (b < extra ? 1 : 0);
    Eigen::Index row = begin;
    try {
      internal::BatchWorkspaceImpl work(model);
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
  // Blocks are in row order, so the first failing block holds the lowest failing row.
  for (int b = 0; b < blocks; ++b) {
    if (errors[static_cast<std::size_t>(b)]) {
      rethrowForRow(errors[static_cast<std::size_t>(b)], function, failed_row[static_cast<std::size_t>(b)]);
    }
  }
}

/// runPacks over all n rows on the calling thread with the caller's workspace.
template <class Pack>
void runSerial(const Model& model, BatchWorkspace& workspace, Eigen::Index n, const char* function, const Pack& pack) {
  internal::BatchWorkspaceImpl& work = workspace.impl();
  if (work.model_key != model.structureKey()) {
    throw InvalidArgument(std::string("abdyn::") + function + ": argument 'workspace' was built for another model, not '" +
                          model.name() + "'");
  }
  Eigen::Index row = 0;
  try {
    runPacks(work, 0, n, pack, row);
  } catch (...) {
    rethrowForRow(std::current_exception(), function, row);
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
/// `row` follows the state checked, for runBatch's message.
void checkRows(const Model& model, const Eigen::Ref<const RowMatrixXd>* const* rows, const char* const* names, int inputs,
               Eigen::Index k, int count, const char* function, internal::BatchWorkspaceImpl& work, Eigen::Index& row) {
  if (!checkedMode()) return;
  for (row = k; row < k + count; ++row) {
    work.q = rows[0]->row(row).transpose();
    internal::checkConfiguration(model, work.q, function);
    for (int input = 1; input < inputs; ++input) internal::checkVector(rows[input]->row(row), model.nv(), function, names[input]);
  }
  row = k;
}

[[noreturn]] void throwSingular(const Model& model, const internal::PackFailure& failure, const char* function) {
  throw Error(std::string(function) + ": joint '" + model.joint(failure.body).name + "' of model '" + model.name() +
              "' has no articulated inertia to move (S^T IA S = " + std::to_string(failure.pivot) +
              "): the mass matrix is singular (e.g. a massless body whose motion another joint duplicates)");
}

void checkForward(const Model& model, const Eigen::Ref<const RowMatrixXd>& Q, const Eigen::Ref<const RowMatrixXd>& V,
                  const Eigen::Ref<const RowMatrixXd>& TAU, const Eigen::Ref<RowMatrixXd>& QDD, const DynamicsOptions& options) {
  const char* fn = "forwardDynamicsBatch";
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
  const Eigen::Index n = Q.rows();
  checkShape(fn, "Q", Q.rows(), Q.cols(), n, model.nq());
  checkShape(fn, "V", V.rows(), V.cols(), n, model.nv());
  checkShape(fn, "QDD", QDD.rows(), QDD.cols(), n, model.nv());
  checkShape(fn, "TAU", TAU.rows(), TAU.cols(), n, model.nv());
}

void checkMass(const Model& model, const Eigen::Ref<const RowMatrixXd>& Q, const Eigen::Ref<RowMatrixXd>& M,
               const DynamicsOptions& options) {
  const char* fn = "massMatrixBatch";
  checkShape(fn, "Q", Q.rows(), Q.cols(), Q.rows(), model.nq());
  checkShape(fn, "M", M.rows(), M.cols(), Q.rows(), model.nv() * model.nv());
  internal::checkDynamicsOptions(options, "abdyn::massMatrixBatch");
}

/// The ABA of one pack: rows [k, k + count) of Q, V, TAU into QDD.
auto abaPacks(const Model& model, const Eigen::Ref<const RowMatrixXd>& Q, const Eigen::Ref<const RowMatrixXd>& V,
              const Eigen::Ref<const RowMatrixXd>& TAU, Eigen::Ref<RowMatrixXd>& QDD, const DynamicsOptions& options) {
  return [&](internal::BatchWorkspaceImpl& work, Eigen::Index k, int count, Eigen::Index& row) {
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
      throwSingular(model, failure, "abdyn::forwardDynamics");
    }
    scatter(pack.y(), count, W, k, QDD);
  };
}

/// The RNEA of one pack: rows [k, k + count) of Q, V, QDD into TAU.
auto rneaPacks(const Model& model, const Eigen::Ref<const RowMatrixXd>& Q, const Eigen::Ref<const RowMatrixXd>& V,
               const Eigen::Ref<const RowMatrixXd>& QDD, Eigen::Ref<RowMatrixXd>& TAU, const DynamicsOptions& options) {
  return [&](internal::BatchWorkspaceImpl& work, Eigen::Index k, int count, Eigen::Index& row) {
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
  return [&](internal::BatchWorkspaceImpl& work, Eigen::Index k, int count, Eigen::Index& row) {
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

BatchWorkspace::BatchWorkspace(const Model& model) : impl_(std::make_unique<internal::BatchWorkspaceImpl>(model)) {}
BatchWorkspace::~BatchWorkspace() = default;
BatchWorkspace::BatchWorkspace(BatchWorkspace&&) noexcept = default;
BatchWorkspace& BatchWorkspace::operator=(BatchWorkspace&&) noexcept = default;
int BatchWorkspace::lanes() const { return impl_->pack.lanes(); }

int batchThreads(int threads, Eigen::Index states) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return static_cast<int>(std::max<Eigen::Index>(1, std::min<Eigen::Index>(threads, states)));
}

void setBatchSimd(BatchSimd limit) {
  hwy::SetSupportedTargetsForTest(0);  // the CPU's own targets
  int64_t allowed = hwy::SupportedTargets();
  switch (limit) {
    case BatchSimd::Widest:
      break;
    case BatchSimd::Avx2:  // Highway's targets are bits, the wider the lower
      allowed &= ~(HWY_AVX2 - 1);
      break;
    case BatchSimd::Sse4:
      allowed &= ~(HWY_SSE4 - 1);
      break;
    case BatchSimd::Portable:
      allowed &= HWY_EMU128 | HWY_SCALAR;
      break;
  }
  if (limit != BatchSimd::Widest) hwy::SetSupportedTargetsForTest(allowed);
  hwy::GetChosenTarget().Update(hwy::SupportedTargets());
}

const char* batchSimdName() { return internal::packKernels().name; }

int batchLanes() { return internal::packKernels().lanes; }

void forwardDynamicsBatch(const Model& model, const Eigen::Ref<const RowMatrixXd>& Q, const Eigen::Ref<const RowMatrixXd>& V,
                          const Eigen::Ref<const RowMatrixXd>& TAU, Eigen::Ref<RowMatrixXd> QDD, int threads,
                          const DynamicsOptions& options) {
  checkForward(model, Q, V, TAU, QDD, options);
  runBatch(model, Q.rows(), threads, "forwardDynamicsBatch", abaPacks(model, Q, V, TAU, QDD, options));
}

void forwardDynamicsBatch(const Model& model, BatchWorkspace& workspace, const Eigen::Ref<const RowMatrixXd>& Q,
                          const Eigen::Ref<const RowMatrixXd>& V, const Eigen::Ref<const RowMatrixXd>& TAU,
                          Eigen::Ref<RowMatrixXd> QDD, const DynamicsOptions& options) {
  checkForward(model, Q, V, TAU, QDD, options);
  runSerial(model, workspace, Q.rows(), "forwardDynamicsBatch", abaPacks(model, Q, V, TAU, QDD, options));
}

void inverseDynamicsBatch(const Model& model, const Eigen::Ref<const RowMatrixXd>& Q, const Eigen::Ref<const RowMatrixXd>& V,
                          const Eigen::Ref<const RowMatrixXd>& QDD, Eigen::Ref<RowMatrixXd> TAU, int threads,
                          const DynamicsOptions& options) {
  checkInverse(model, Q, V, QDD, TAU);
  runBatch(model, Q.rows(), threads, "inverseDynamicsBatch", rneaPacks(model, Q, V, QDD, TAU, options));
}

void inverseDynamicsBatch(const Model& model, BatchWorkspace& workspace, const Eigen::Ref<const RowMatrixXd>& Q,
                          const Eigen::Ref<const RowMatrixXd>& V, const Eigen::Ref<const RowMatrixXd>& QDD,
                          Eigen::Ref<RowMatrixXd> TAU, const DynamicsOptions& options) {
  checkInverse(model, Q, V, QDD, TAU);
  runSerial(model, workspace, Q.rows(), "inverseDynamicsBatch", rneaPacks(model, Q, V, QDD, TAU, options));
}

void massMatrixBatch(const Model& model, const Eigen::Ref<const RowMatrixXd>& Q, Eigen::Ref<RowMatrixXd> M, int threads,
                     const DynamicsOptions& options) {
  checkMass(model, Q, M, options);
  runBatch(model, Q.rows(), threads, "massMatrixBatch", crbaPacks(model, Q, M, options));
}

void massMatrixBatch(const Model& model, BatchWorkspace& workspace, const Eigen::Ref<const RowMatrixXd>& Q,
                     Eigen::Ref<RowMatrixXd> M, const DynamicsOptions& options) {
  checkMass(model, Q, M, options);
  runSerial(model, workspace, Q.rows(), "massMatrixBatch", crbaPacks(model, Q, M, options));
}

}  // namespace abdyn
