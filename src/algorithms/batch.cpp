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

namespace {

void checkShape(const char* function, const char* argument, Eigen::Index rows, Eigen::Index cols, Eigen::Index expected_rows,
                Eigen::Index expected_cols) {
  if (rows != expected_rows || cols != expected_cols) {
    throw InvalidArgument(std::string("abdyn::") + function + ": '" + argument + "' must be " +
                          std::to_string(expected_rows) + " x " + std::to_string(expected_cols) + ", got " +
                          std::to_string(rows) + " x " + std::to_string(cols));
  }
}

/// A block's workspace, built once per block (like Data): the pack kernels' and a q for the checks.
struct BlockWorkspace {
  explicit BlockWorkspace(const Model& model) : pack(model), q(model.nq()) {}
  internal::PackWorkspace pack;
  Eigen::VectorXd q;
};

/// Runs pack(workspace, begin, count, row) for the packs of W rows of `threads` contiguous blocks of [0, n), one
/// workspace per block; the calling thread takes block 0. `pack` sets `row` to the state it works on before a
/// check or kernel that may throw. Rethrows the failure of the lowest failing row.
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
      BlockWorkspace work(model);
      const int W = work.pack.lanes();
      for (Eigen::Index k = begin; k < end; k += W) pack(work, k, static_cast<int>(std::min<Eigen::Index>(W, end - k)), row);
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
    if (!errors[static_cast<std::size_t>(b)]) continue;
    const std::string prefix = std::string("abdyn::") + function + ": state " +
                               std::to_string(failed_row[static_cast<std::size_t>(b)]) + ": ";
    try {
      std::rethrow_exception(errors[static_cast<std::size_t>(b)]);
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(prefix + e.what());
    } catch (const Error& e) {
      throw Error(prefix + e.what());
    }
  }
}

/// Rows [k, k + count) of X into a pack x[j * W + l]; lanes from count on repeat the last row.
void gather(const Eigen::Ref<const RowMatrixXd>& X, Eigen::Index k, int count, int W, double* x) {
  for (int l = 0; l < W; ++l) {
    const double* row = X.row(k + std::min(l, count - 1)).data();
    for (Eigen::Index j = 0; j < X.cols(); ++j) x[j * W + l] = row[j];
  }
}

/// The pack's first count lanes of y[j * W + l] into rows [k, k + count) of Y.
void scatter(const double* y, int count, int W, Eigen::Index k, Eigen::Ref<RowMatrixXd> Y) {
  for (int l = 0; l < count; ++l) {
    double* row = Y.row(k + l).data();
    for (Eigen::Index j = 0; j < Y.cols(); ++j) row[j] = y[j * W + l];
  }
}

/// In checked mode, the single-state calls' checks of rows [k, k + count): finite entries, unit quaternions.
/// `row` follows the state checked, for runBatch's message.
void checkRows(const Model& model, const Eigen::Ref<const RowMatrixXd>* rows, const char* const* names, int inputs,
               Eigen::Index k, int count, const char* function, BlockWorkspace& work, Eigen::Index& row) {
  if (!checkedMode()) return;
  for (row = k; row < k + count; ++row) {
    work.q = rows[0].row(row).transpose();
    internal::checkConfiguration(model, work.q, function);
    for (int input = 1; input < inputs; ++input) internal::checkVector(rows[input].row(row), model.nv(), function, names[input]);
  }
  row = k;
}

[[noreturn]] void throwSingular(const Model& model, const internal::PackFailure& failure, const char* function) {
  throw Error(std::string(function) + ": joint '" + model.joint(failure.body).name + "' of model '" + model.name() +
              "' has no articulated inertia to move (S^T IA S = " + std::to_string(failure.pivot) +
              "): the mass matrix is singular (e.g. a massless body whose motion another joint duplicates)");
}

}  // namespace

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
  const char* fn = "forwardDynamicsBatch";
  const Eigen::Index n = Q.rows();
  checkShape(fn, "Q", Q.rows(), Q.cols(), n, model.nq());
  checkShape(fn, "V", V.rows(), V.cols(), n, model.nv());
  checkShape(fn, "TAU", TAU.rows(), TAU.cols(), n, model.nv());
  checkShape(fn, "QDD", QDD.rows(), QDD.cols(), n, model.nv());
  internal::checkDynamicsOptions(options, "abdyn::forwardDynamicsBatch");
  const Eigen::Ref<const RowMatrixXd> inputs[] = {Q, V, TAU};
  const char* const names[] = {"q", "v", "tau"};
  runBatch(model, n, threads, fn, [&](BlockWorkspace& work, Eigen::Index k, int count, Eigen::Index& row) {
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
  });
}

void inverseDynamicsBatch(const Model& model, const Eigen::Ref<const RowMatrixXd>& Q, const Eigen::Ref<const RowMatrixXd>& V,
                          const Eigen::Ref<const RowMatrixXd>& QDD, Eigen::Ref<RowMatrixXd> TAU, int threads,
                          const DynamicsOptions& options) {
  const char* fn = "inverseDynamicsBatch";
  const Eigen::Index n = Q.rows();
  checkShape(fn, "Q", Q.rows(), Q.cols(), n, model.nq());
  checkShape(fn, "V", V.rows(), V.cols(), n, model.nv());
  checkShape(fn, "QDD", QDD.rows(), QDD.cols(), n, model.nv());
  checkShape(fn, "TAU", TAU.rows(), TAU.cols(), n, model.nv());
  const Eigen::Ref<const RowMatrixXd> inputs[] = {Q, V, QDD};
  const char* const names[] = {"q", "v", "qdd"};
  runBatch(model, n, threads, fn, [&](BlockWorkspace& work, Eigen::Index k, int count, Eigen::Index& row) {
    checkRows(model, inputs, names, 3, k, count, "abdyn::inverseDynamics", work, row);
    internal::PackWorkspace& pack = work.pack;
    const int W = pack.lanes();
    gather(Q, k, count, W, pack.q());
    gather(V, k, count, W, pack.v());
    gather(QDD, k, count, W, pack.x());
    pack.kernels().rnea(pack.model(), options, pack.work(), pack.q(), pack.v(), pack.x(), pack.y());
    scatter(pack.y(), count, W, k, TAU);
  });
}

void massMatrixBatch(const Model& model, const Eigen::Ref<const RowMatrixXd>& Q, Eigen::Ref<RowMatrixXd> M, int threads,
                     const DynamicsOptions& options) {
  const char* fn = "massMatrixBatch";
  const Eigen::Index n = Q.rows(), nv = model.nv();
  checkShape(fn, "Q", Q.rows(), Q.cols(), n, model.nq());
  checkShape(fn, "M", M.rows(), M.cols(), n, nv * nv);
  internal::checkDynamicsOptions(options, "abdyn::massMatrixBatch");
  const Eigen::Ref<const RowMatrixXd> inputs[] = {Q};
  const char* const names[] = {"q"};
  runBatch(model, n, threads, fn, [&](BlockWorkspace& work, Eigen::Index k, int count, Eigen::Index& row) {
    checkRows(model, inputs, names, 1, k, count, "abdyn::massMatrix", work, row);
    internal::PackWorkspace& pack = work.pack;
    const int W = pack.lanes();
    gather(Q, k, count, W, pack.q());
    pack.kernels().crba(pack.model(), options, pack.work(), pack.q(), pack.y());
    scatter(pack.y(), count, W, k, M);
  });
}

}  // namespace abdyn
