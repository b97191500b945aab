#include "abdyn/algorithms/batch.hpp"

#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "abdyn/algorithms/aba.hpp"
#include "abdyn/algorithms/crba.hpp"
#include "abdyn/algorithms/rnea.hpp"
#include "abdyn/error.hpp"
#include "abdyn/model/data.hpp"
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

/// Runs state(data, k, scratch...) for k in [0, n) on `threads` contiguous blocks, one Data per block;
/// the calling thread takes block 0. Rethrows the failure of the lowest failing row.
template <class PerState>
void runBatch(const Model& model, Eigen::Index n, int threads, const char* function, const PerState& state) {
  internal::checkDynamics(model, function);
  const int blocks = batchThreads(threads, n);
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(blocks));
  std::vector<Eigen::Index> failed_row(static_cast<std::size_t>(blocks), -1);
  auto run_block = [&](int b) {
    // Block b holds rows [begin, end): the first n % blocks blocks get one row more.
    const Eigen::Index base = n / blocks, extra = n % blocks;
    const Eigen::Index begin = b * base + std::min<Eigen::Index>(b, extra);
    const Eigen::Index end = begin + base + (b < extra ? 1 : 0);
    Eigen::Index k = begin;
    try {
      Data data(model);
      Eigen::VectorXd x(model.nq()), y(model.nv()), z(model.nv());
      for (; k < end; ++k) state(data, k, x, y, z);
    } catch (...) {
      errors[static_cast<std::size_t>(b)] = std::current_exception();
      failed_row[static_cast<std::size_t>(b)] = k;
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

}  // namespace

int batchThreads(int threads, Eigen::Index states) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return static_cast<int>(std::max<Eigen::Index>(1, std::min<Eigen::Index>(threads, states)));
}

void forwardDynamicsBatch(const Model& model, const Eigen::Ref<const RowMatrixXd>& Q, const Eigen::Ref<const RowMatrixXd>& V,
                          const Eigen::Ref<const RowMatrixXd>& TAU, Eigen::Ref<RowMatrixXd> QDD, int threads,
                          const DynamicsOptions& options) {
  const char* fn = "forwardDynamicsBatch";
  const Eigen::Index n = Q.rows();
  checkShape(fn, "Q", Q.rows(), Q.cols(), n, model.nq());
  checkShape(fn, "V", V.rows(), V.cols(), n, model.nv());
  checkShape(fn, "TAU", TAU.rows(), TAU.cols(), n, model.nv());
  checkShape(fn, "QDD", QDD.rows(), QDD.cols(), n, model.nv());
  runBatch(model, n, threads, fn,
           [&](Data& data, Eigen::Index k, Eigen::VectorXd& q, Eigen::VectorXd& v, Eigen::VectorXd& tau) {
             q = Q.row(k).transpose();
             v = V.row(k).transpose();
             tau = TAU.row(k).transpose();
             QDD.row(k) = forwardDynamics(model, data, q, v, tau, options).transpose();
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
  runBatch(model, n, threads, fn,
           [&](Data& data, Eigen::Index k, Eigen::VectorXd& q, Eigen::VectorXd& v, Eigen::VectorXd& qdd) {
             q = Q.row(k).transpose();
             v = V.row(k).transpose();
             qdd = QDD.row(k).transpose();
             TAU.row(k) = inverseDynamics(model, data, q, v, qdd, options).transpose();
           });
}

void massMatrixBatch(const Model& model, const Eigen::Ref<const RowMatrixXd>& Q, Eigen::Ref<RowMatrixXd> M, int threads,
                     const DynamicsOptions& options) {
  const char* fn = "massMatrixBatch";
  const Eigen::Index n = Q.rows(), nv = model.nv();
  checkShape(fn, "Q", Q.rows(), Q.cols(), n, model.nq());
  checkShape(fn, "M", M.rows(), M.cols(), n, nv * nv);
  runBatch(model, n, threads, fn,
           [&](Data& data, Eigen::Index k, Eigen::VectorXd& q, Eigen::VectorXd&, Eigen::VectorXd&) {
             q = Q.row(k).transpose();
             // M is symmetric, so its column-major storage is also its row-major layout.
             const Eigen::MatrixXd& Mk = massMatrix(model, data, q, options);
             M.row(k) = Eigen::Map<const Eigen::Matrix<double, 1, Eigen::Dynamic>>(Mk.data(), nv * nv);
           });
}

}  // namespace abdyn
