#pragma once
/// @file
/// Many independent simulations at once: N runs of the Simulator (simulator.hpp), each from its own
/// initial state under its own joint forces, spread over threads, each thread holding its own Simulator
/// (and with it its own Data and rows). The Model is copied once per thread and never shared mutably.
///
/// Layouts (row-major, C order: the last index runs fastest, as NumPy's default):
///   q0   (N, nq)            initial configurations        v0   (N, nv)            initial velocities
///   tau  (N, T nv)  = (N, T, nv): joint forces held over step t of run n, at tau(n, t nv .. t nv + nv - 1)
///   Q    (N, (T+1) nq) = (N, T+1, nq): Q(n, t nq ..) the configuration after t steps; t = 0 is q0
///   V    (N, (T+1) nv) = (N, T+1, nv): likewise for the velocity
///   statistics (optional)  N T StepStatistics, run-major: statistics[n T + t] is step t of run n; their
///                          energy only then (a kinematics pass per step) and as the workers' settings say
///                          (without statistics the steps skip it; the settings stay as they are)
///
/// Determinism: run n always starts from a Simulator in the state a new one would have (Simulator::reset:
/// no warm-start impulses from an earlier run) and is computed by one thread alone, so the results are
/// bit for bit those of a serial loop, whatever the number of threads and the order they run in. The runs
/// are split into `threads` contiguous blocks (static partition, no work stealing, no shared mutable
/// state). A policy (the callback form) must be a pure function of its arguments for this to hold, and
/// must be safe to call from several threads at once.
///
/// Allocation: building RolloutWorkers copies the prototype Simulator per thread, each copy made on a
/// thread of its own (kept apart in memory: see Worker), and sizes its row storage for the most rows a
/// step can build (Simulator::reserveRows); a run then allocates nothing per
/// step and nothing per run. Each thread beyond the first is started per call (std::thread), which
/// allocates its launch state once: a call allocates threads - 1 times, whatever N and T.
///
/// Errors: abdyn::InvalidArgument names the argument (wrong sizes, N = 0, threads < 1, non-finite
/// entries, non-unit quaternions in q0, h not positive and finite). A run that diverges throws the
/// Simulator's abdyn::Error; with several failing runs, the one of the lowest index is reported, so the
/// error too does not depend on the threads. After an error the outputs hold partial results.

#include <exception>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include <Eigen/Core>

#include "abdyn/integrators/simulator.hpp"

namespace abdyn {

using RowMatrixXd = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// A policy: writes the joint forces of step `step` of run `run` into tau (nv entries, zero on entry)
/// from the state (q, v) before that step.
using RolloutPolicy = std::function<void(int run, int step, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                         Eigen::Ref<Eigen::VectorXd> tau)>;

/// One Simulator per thread, copied from a prototype (its model, settings, row joints and motors; its
/// state and joint forces are replaced by each run's), built once for many calls of rollout. Serves one
/// call at a time (its Simulators are the calls' workspace, like Data).
class RolloutWorkers {
 public:
  /// Throws abdyn::InvalidArgument when threads < 1.
  RolloutWorkers(const Simulator& prototype, int threads);
  /// Workers copied from `Simulator(model, settings)`; throws abdyn::InvalidArgument when threads < 1.
  RolloutWorkers(const Model& model, const SimulatorSettings& settings, int threads);

  /// Number of Simulators (threads a call may use).
  int threads() const { return static_cast<int>(workers_.size()); }
  /// The model the Simulators step.
  const Model& model() const { return workers_.front()->simulator.model(); }
  /// Thread `thread`'s Simulator (0 .. threads() - 1), e.g. to add row joints or motors to every run.
  Simulator& simulator(int thread) { return workers_[static_cast<std::size_t>(thread)]->simulator; }

 private:
  friend struct RolloutBlocks;  ///< rollout.cpp
  /// Runs run(thread, n) for n = 0 .. runs - 1, the runs split into min(runs, threads()) contiguous blocks,
  /// one per thread (the caller's thread takes the first); a block stops at its first exception, and the
  /// exception of the lowest failing run is rethrown once all threads are done. Defined in rollout.cpp.
  template <class Run>
  void forEachBlock(int runs, const Run& run);

  /// One thread's Simulator on cache lines of its own: the Simulator object holds fields written every
  /// step (its statistics and time, Data's stamps), which side by side with the next thread's would share
  /// a line with it and pass it between the cores on every step (false sharing). Each Worker, with the
  /// storage of its Simulator, is allocated by a thread of its own (RolloutWorkers's constructor), so that
  /// the allocator's per-thread heaps keep one worker's vectors off the next one's cache lines as well.
  struct alignas(64) Worker {
    explicit Worker(const Simulator& prototype) : simulator(prototype) {}
    Simulator simulator;
  };

  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::thread> threads_;        ///< the threads beyond the caller's, started per call
  std::vector<std::exception_ptr> errors_;  ///< per thread: the exception that stopped its block
  std::vector<int> failed_runs_;            ///< per thread: the run that threw it, or -1
};

/// N = q0.rows() runs of `steps` steps of length h with the joint forces of tau (layouts above), on
/// min(N, workers.threads()) threads; writes Q, V and, when given, statistics (N steps entries).
void rollout(RolloutWorkers& workers, const Eigen::Ref<const RowMatrixXd>& q0, const Eigen::Ref<const RowMatrixXd>& v0,
             const Eigen::Ref<const RowMatrixXd>& tau, int steps, double h, Eigen::Ref<RowMatrixXd> Q,
             Eigen::Ref<RowMatrixXd> V, StepStatistics* statistics = nullptr);

/// The same with the joint forces from a policy, called before every step of every run.
void rollout(RolloutWorkers& workers, const Eigen::Ref<const RowMatrixXd>& q0, const Eigen::Ref<const RowMatrixXd>& v0,
             const RolloutPolicy& policy, int steps, double h, Eigen::Ref<RowMatrixXd> Q, Eigen::Ref<RowMatrixXd> V,
             StepStatistics* statistics = nullptr);

/// One call: workers for the Simulator of (model, settings) on `threads` threads, built and dropped.
void rollout(const Model& model, const SimulatorSettings& settings, const Eigen::Ref<const RowMatrixXd>& q0,
             const Eigen::Ref<const RowMatrixXd>& v0, const Eigen::Ref<const RowMatrixXd>& tau, int steps, double h,
             int threads, Eigen::Ref<RowMatrixXd> Q, Eigen::Ref<RowMatrixXd> V, StepStatistics* statistics = nullptr);
/// The same with the joint forces from a policy.
void rollout(const Model& model, const SimulatorSettings& settings, const Eigen::Ref<const RowMatrixXd>& q0,
             const Eigen::Ref<const RowMatrixXd>& v0, const RolloutPolicy& policy, int steps, double h, int threads,
             Eigen::Ref<RowMatrixXd> Q, Eigen::Ref<RowMatrixXd> V, StepStatistics* statistics = nullptr);

}  // namespace abdyn
