#include "abdyn/integrators/rollout.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <system_error>

#include "abdyn/error.hpp"
#include "internal/checks.hpp"

namespace abdyn {

template <class Run>
void RolloutWorkers::forEachBlock(int runs, const Run& run) {
  const int threads = std::min(runs, this->threads());
  const auto first = [runs, threads](int k) { return static_cast<int>(static_cast<long>(k) * runs / threads); };
  const auto block = [&](int k) {
    const std::size_t slot = static_cast<std::size_t>(k);
    errors_[slot] = nullptr;
    failed_runs_[slot] = -1;
    for (int n = first(k); n < first(k + 1); ++n) {
      try {
        run(k, n);
      } catch (...) {
        errors_[slot] = std::current_exception();
        failed_runs_[slot] = n;
        return;
      }
    }
  };
  int started = 1;
  for (; started < threads; ++started) {
    try {
      threads_[static_cast<std::size_t>(started - 1)] = std::thread(block, started);
    } catch (const std::system_error&) {
      break;  // the system refuses more threads: the caller's thread runs the remaining blocks itself
    }
  }
  for (int k = started; k < threads; ++k) block(k);
  block(0);
  for (int k = 1; k < started; ++k) threads_[static_cast<std::size_t>(k - 1)].join();
  // Blocks are contiguous and in order, and each stops at its own first failure: the first failing
  // block's error is the lowest failing run's.
  for (int k = 0; k < threads; ++k) {
    if (failed_runs_[static_cast<std::size_t>(k)] >= 0) std::rethrow_exception(errors_[static_cast<std::size_t>(k)]);
  }
}

struct RolloutBlocks {
  template <class Run>
  static void run(RolloutWorkers& workers, int runs, const Run& body) {
    workers.forEachBlock(runs, body);
  }
  // The step's energy costs a kinematics pass per step, and only the statistics return it.
  static const StepStatistics& step(Simulator& sim, double h, bool statistics) {
    return sim.advance(h, statistics && sim.settings().energy);
  }
};

namespace {

constexpr const char* kFunction = "abdyn::rollout";

[[noreturn]] void throwArgument(const char* argument, const std::string& what) {
  throw InvalidArgument(std::string(kFunction) + ": argument '" + argument + "' " + what);
}

void checkShape(const char* argument, Eigen::Index rows, Eigen::Index cols, Eigen::Index expected_rows,
                Eigen::Index expected_cols, const char* layout) {
  if (rows != expected_rows || cols != expected_cols) {
    throwArgument(argument, "has shape (" + std::to_string(rows) + ", " + std::to_string(cols) + "), expected (" +
                                std::to_string(expected_rows) + ", " + std::to_string(expected_cols) + ") = " + layout);
  }
}

void checkFinite(const char* argument, const Eigen::Ref<const RowMatrixXd>& x) {
  for (Eigen::Index n = 0; n < x.rows(); ++n) {
    for (Eigen::Index k = 0; k < x.cols(); ++k) {
      if (!std::isfinite(x(n, k))) {
        throwArgument(argument, "has a non-finite entry at row " + std::to_string(n) + ", column " + std::to_string(k));
      }
    }
  }
}

// Every argument but the joint forces, which the two forms take differently. `scratch` (nq entries) holds
// each q0 row for the quaternion check, so that checking allocates nothing.
void checkCommon(const Model& model, const Eigen::Ref<const RowMatrixXd>& q0, const Eigen::Ref<const RowMatrixXd>& v0,
                 int steps, double h, const Eigen::Ref<RowMatrixXd>& Q, const Eigen::Ref<RowMatrixXd>& V,
                 Eigen::VectorXd& scratch) {
  const Eigen::Index N = q0.rows(), nq = model.nq(), nv = model.nv();
  if (N == 0) throwArgument("q0", "has no rows: N = 0 runs");
  if (steps < 0) throwArgument("steps", "is " + std::to_string(steps) + ", expected 0 or more");
  if (!(h > 0.0) || !std::isfinite(h)) throwArgument("h", "is " + std::to_string(h) + ", expected positive and finite");
  checkShape("q0", q0.rows(), q0.cols(), N, nq, "(N, nq)");
  checkShape("v0", v0.rows(), v0.cols(), N, nv, "(N, nv)");
  const Eigen::Index T1 = static_cast<Eigen::Index>(steps) + 1;
  checkShape("Q", Q.rows(), Q.cols(), N, T1 * nq, "(N, (steps + 1) nq)");
  checkShape("V", V.rows(), V.cols(), N, T1 * nv, "(N, (steps + 1) nv)");
  checkFinite("q0", q0);
  checkFinite("v0", v0);
  if (!model.hasQuaternions()) return;
  for (Eigen::Index n = 0; n < N; ++n) {
    scratch = q0.row(n).transpose();
    try {
      internal::checkQuaternions(model, scratch, kFunction);
    } catch (const InvalidArgument& e) {
      throwArgument("q0", "row " + std::to_string(n) + ": " + e.what());
    }
  }
}

// Runs every run of q0 on the workers; forces(n, t, sim) sets sim.tau for step t of run n.
template <class Forces>
void runAll(RolloutWorkers& workers, const Eigen::Ref<const RowMatrixXd>& q0, const Eigen::Ref<const RowMatrixXd>& v0,
            const Forces& forces, int steps, double h, Eigen::Ref<RowMatrixXd>& Q, Eigen::Ref<RowMatrixXd>& V,
            StepStatistics* statistics) {
  const Eigen::Index nq = workers.model().nq(), nv = workers.model().nv();
  RolloutBlocks::run(workers, static_cast<int>(q0.rows()), [&](int thread, int n) {
    Simulator& sim = workers.simulator(thread);
    sim.reset(q0.row(n).transpose(), v0.row(n).transpose());
    Q.row(n).head(nq) = sim.q.transpose();
    V.row(n).head(nv) = sim.v.transpose();
    for (int t = 0; t < steps; ++t) {
      forces(n, t, sim);
      const StepStatistics& stats = RolloutBlocks::step(sim, h, statistics != nullptr);
      if (statistics) statistics[static_cast<std::size_t>(n) * static_cast<std::size_t>(steps) + static_cast<std::size_t>(t)] = stats;
      Q.row(n).segment((t + 1) * nq, nq) = sim.q.transpose();
      V.row(n).segment((t + 1) * nv, nv) = sim.v.transpose();
    }
  });
}

}  // namespace

RolloutWorkers::RolloutWorkers(const Simulator& prototype, int threads) {
  if (threads < 1) throwArgument("threads", "is " + std::to_string(threads) + ", expected at least 1");
  workers_.resize(static_cast<std::size_t>(threads));
  threads_.resize(static_cast<std::size_t>(threads - 1));
  errors_.resize(static_cast<std::size_t>(threads));
  failed_runs_.resize(static_cast<std::size_t>(threads));
  // Worker k is allocated by a thread alive while the others are (so that each has its own heap, see
  // Worker); the caller's thread builds worker 0, and any the system refuses a thread for.
  const auto build = [&](int k) {
    try {
      auto worker = std::make_unique<Worker>(prototype);
      worker->simulator.reserveRows();
      workers_[static_cast<std::size_t>(k)] = std::move(worker);
    } catch (...) {
      errors_[static_cast<std::size_t>(k)] = std::current_exception();
    }
  };
  int started = 1;
  for (; started < threads; ++started) {
    try {
      threads_[static_cast<std::size_t>(started - 1)] = std::thread(build, started);
    } catch (const std::system_error&) {
      break;
    }
  }
  for (int k = started; k < threads; ++k) build(k);
  build(0);
  for (int k = 1; k < started; ++k) threads_[static_cast<std::size_t>(k - 1)].join();
  for (const std::exception_ptr& error : errors_) {
    if (error) std::rethrow_exception(error);
  }
}

RolloutWorkers::RolloutWorkers(const Model& model, const SimulatorSettings& settings, int threads)
    : RolloutWorkers(Simulator(model, settings), threads) {}

void rollout(RolloutWorkers& workers, const Eigen::Ref<const RowMatrixXd>& q0, const Eigen::Ref<const RowMatrixXd>& v0,
             const Eigen::Ref<const RowMatrixXd>& tau, int steps, double h, Eigen::Ref<RowMatrixXd> Q,
             Eigen::Ref<RowMatrixXd> V, StepStatistics* statistics) {
  const Model& model = workers.model();
  checkCommon(model, q0, v0, steps, h, Q, V, workers.simulator(0).q);  // reset by every run
  const Eigen::Index nv = model.nv();
  checkShape("tau", tau.rows(), tau.cols(), q0.rows(), static_cast<Eigen::Index>(steps) * nv, "(N, steps nv)");
  checkFinite("tau", tau);
  const auto forces = [&tau, nv](int n, int t, Simulator& sim) { sim.tau = tau.row(n).segment(t * nv, nv).transpose(); };
  runAll(workers, q0, v0, forces, steps, h, Q, V, statistics);
}

void rollout(RolloutWorkers& workers, const Eigen::Ref<const RowMatrixXd>& q0, const Eigen::Ref<const RowMatrixXd>& v0,
             const RolloutPolicy& policy, int steps, double h, Eigen::Ref<RowMatrixXd> Q, Eigen::Ref<RowMatrixXd> V,
             StepStatistics* statistics) {
  checkCommon(workers.model(), q0, v0, steps, h, Q, V, workers.simulator(0).q);  // reset by every run
  if (!policy) throwArgument("policy", "is empty");
  const auto forces = [&policy](int n, int t, Simulator& sim) {
    sim.tau.setZero();
    policy(n, t, sim.q, sim.v, sim.tau);
  };
  runAll(workers, q0, v0, forces, steps, h, Q, V, statistics);
}

void rollout(const Model& model, const SimulatorSettings& settings, const Eigen::Ref<const RowMatrixXd>& q0,
             const Eigen::Ref<const RowMatrixXd>& v0, const Eigen::Ref<const RowMatrixXd>& tau, int steps, double h,
             int threads, Eigen::Ref<RowMatrixXd> Q, Eigen::Ref<RowMatrixXd> V, StepStatistics* statistics) {
  RolloutWorkers workers(model, settings, threads);
  rollout(workers, q0, v0, tau, steps, h, Q, V, statistics);
}

void rollout(const Model& model, const SimulatorSettings& settings, const Eigen::Ref<const RowMatrixXd>& q0,
             const Eigen::Ref<const RowMatrixXd>& v0, const RolloutPolicy& policy, int steps, double h, int threads,
             Eigen::Ref<RowMatrixXd> Q, Eigen::Ref<RowMatrixXd> V, StepStatistics* statistics) {
  RolloutWorkers workers(model, settings, threads);
  rollout(workers, q0, v0, policy, steps, h, Q, V, statistics);
}

}  // namespace abdyn
