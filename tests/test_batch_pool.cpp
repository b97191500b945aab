#define BOOST_TEST_MODULE batch_pool
#include <boost/test/unit_test.hpp>

#include <random>
#include <thread>
#include <vector>

#include "abdyn/abdyn.hpp"
#if defined(__SANITIZE_THREAD__)
// ThreadSanitizer interposes the C allocator itself, which the counter would replace: no counting under
// it (the calls still run, for its race checks).
#define ABDYN_COUNTS_ALLOCATIONS 0
namespace abdyn::test {
template <class F>
long countAllocations(F&& f) {
  f();
  return 0;
}
}  // namespace abdyn::test
#else
#include "allocation_counter.hpp"
#endif
#include "batch_states.hpp"

// The kept threads of the batched calls: the calls that take a thread count share one process-wide
// workspace (batch.hpp), and rolloutBatch runs on a BatchWorkspace. Results are compared bit for bit with a
// BatchWorkspace of the caller's own: a state's result depends on its row only (batch.hpp), so any
// difference is a fault of the sharing, not round-off.

namespace {

bool same(const abdyn::RowMatrixXd& a, const abdyn::RowMatrixXd& b) { return (a.array() == b.array()).all(); }

/// ABA, RNEA and CRBA of a batch, in one row matrix each.
struct BatchResults {
  abdyn::RowMatrixXd qdd, tau, M;
};

BatchResults withWorkspace(const abdyn::Model& model, const abdyn::test::States& s) {
  const Eigen::Index n = s.Q.rows(), nv = model.nv();
  BatchResults r{abdyn::RowMatrixXd(n, nv), abdyn::RowMatrixXd(n, nv), abdyn::RowMatrixXd(n, nv * nv)};
  abdyn::BatchWorkspace workspace(model, 1);
  abdyn::forwardDynamicsBatch(model, workspace, s.Q, s.V, s.W, r.qdd);
  abdyn::inverseDynamicsBatch(model, workspace, s.Q, s.V, s.W, r.tau);
  abdyn::massMatrixBatch(model, workspace, s.Q, r.M);
  return r;
}

BatchResults withThreadCount(const abdyn::Model& model, const abdyn::test::States& s, int threads) {
  const Eigen::Index n = s.Q.rows(), nv = model.nv();
  BatchResults r{abdyn::RowMatrixXd(n, nv), abdyn::RowMatrixXd(n, nv), abdyn::RowMatrixXd(n, nv * nv)};
  abdyn::forwardDynamicsBatch(model, s.Q, s.V, s.W, r.qdd, threads);
  abdyn::inverseDynamicsBatch(model, s.Q, s.V, s.W, r.tau, threads);
  abdyn::massMatrixBatch(model, s.Q, r.M, threads);
  return r;
}

bool same(const BatchResults& a, const BatchResults& b) { return same(a.qdd, b.qdd) && same(a.tau, b.tau) && same(a.M, b.M); }

/// Restores the widest instruction set when a test ends.
struct WidestSimd {
  ~WidestSimd() { abdyn::setBatchSimd(abdyn::BatchSimd::Widest); }
};

}  // namespace

// Repeated calls with a thread count, alternating two models (the shared workspace rebuilt for each), thread
// counts (1 to 3, and the hardware's) and instruction sets, give the results of a workspace of one's own.
BOOST_AUTO_TEST_CASE(calls_with_a_thread_count_share_a_kept_workspace) {
  WidestSimd guard;
  std::mt19937 rng(21);
  const abdyn::Model a = abdyn::randomTree({9, false, true, true, true}, rng);
  const abdyn::Model b = abdyn::randomTree({6, true, false, false, true}, rng);
  const abdyn::test::States sa = abdyn::test::randomStates(a, 29, 1), sb = abdyn::test::randomStates(b, 29, 2);
  for (const abdyn::BatchSimd simd : {abdyn::BatchSimd::Widest, abdyn::BatchSimd::Sse4}) {
    abdyn::setBatchSimd(simd);
    const BatchResults ra = withWorkspace(a, sa), rb = withWorkspace(b, sb);
    for (int round = 0; round < 3; ++round) {
      for (const int threads : {1, 2, 3, 0}) {
        BOOST_TEST(same(withThreadCount(a, sa, threads), ra), abdyn::batchSimdName() << ", threads " << threads);
        BOOST_TEST(same(withThreadCount(a, sa, threads), ra), abdyn::batchSimdName() << ", threads " << threads);
        BOOST_TEST(same(withThreadCount(b, sb, threads), rb), abdyn::batchSimdName() << ", threads " << threads);
      }
    }
  }
}

// Calls with a thread count from four threads at once, on two models: each gets its own results (the one
// that holds the shared workspace uses it, the others build their own for the call).
BOOST_AUTO_TEST_CASE(calls_with_a_thread_count_from_several_threads) {
  std::mt19937 rng(22);
  const abdyn::Model a = abdyn::randomTree({8, false, true, true, true}, rng);
  const abdyn::Model b = abdyn::randomTree({5, false, false, false, false}, rng);
  const abdyn::test::States sa = abdyn::test::randomStates(a, 19, 3), sb = abdyn::test::randomStates(b, 19, 4);
  const BatchResults ra = withWorkspace(a, sa), rb = withWorkspace(b, sb);
  constexpr int kCallers = 4, kCalls = 20;
  std::vector<int> mismatches(kCallers, 0);
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&, c] {
      for (int call = 0; call < kCalls; ++call) {
        const bool first = (c + call) % 2 == 0;
        if (!same(withThreadCount(first ? a : b, first ? sa : sb, 2), first ? ra : rb)) ++mismatches[static_cast<std::size_t>(c)];
      }
    });
  }
  for (std::thread& t : callers) t.join();
  for (int c = 0; c < kCallers; ++c) BOOST_TEST(mismatches[static_cast<std::size_t>(c)] == 0, "caller " << c);
}

// rolloutBatch on a BatchWorkspace: the trajectories of the call with a thread count, bit for bit, on one
// and three threads, call after call; after the first call on a workspace (which builds the threads'
// lanes) nothing is allocated; a workspace of another model is refused, naming the argument.
BOOST_AUTO_TEST_CASE(rollouts_on_a_kept_workspace) {
  std::mt19937 rng(23);
  const abdyn::Model model = abdyn::randomTree({6, false, true, true, true}, rng);
  const abdyn::Model other = abdyn::randomTree({4, true, false, false, false}, rng);
  const Eigen::Index n = 11;
  const int steps = 5;
  const double h = 1e-3;
  const abdyn::test::States s = abdyn::test::randomStates(model, n, 5);
  const abdyn::RowMatrixXd tau = abdyn::RowMatrixXd::Random(n, steps * model.nv());
  for (const abdyn::BatchIntegrator integrator : {abdyn::BatchIntegrator::SemiImplicitEuler, abdyn::BatchIntegrator::RungeKutta4}) {
    abdyn::RowMatrixXd Q(n, (steps + 1) * model.nq()), V(n, (steps + 1) * model.nv());
    abdyn::rolloutBatch(model, integrator, s.Q, s.V, tau, steps, h, Q, V, 2);
    for (const int threads : {1, 3}) {
      abdyn::BatchWorkspace workspace(model, threads);
      abdyn::RowMatrixXd Qw(Q.rows(), Q.cols()), Vw(V.rows(), V.cols());
      abdyn::rolloutBatch(model, workspace, integrator, s.Q, s.V, tau, steps, h, Qw, Vw);
      BOOST_TEST((same(Qw, Q) && same(Vw, V)), "threads " << threads);
      const long count = abdyn::test::countAllocations([&] {
        for (int call = 0; call < 3; ++call) abdyn::rolloutBatch(model, workspace, integrator, s.Q, s.V, tau, steps, h, Qw, Vw);
      });
      if (ABDYN_COUNTS_ALLOCATIONS) BOOST_TEST(count == 0, count << " heap allocations on " << threads << " threads");
      BOOST_TEST((same(Qw, Q) && same(Vw, V)), "threads " << threads << ", repeated");
      abdyn::rolloutBatch(model, integrator, s.Q, s.V, tau, steps, h, Qw, Vw, threads);
      BOOST_TEST((same(Qw, Q) && same(Vw, V)), "thread count " << threads);
    }
  }
  abdyn::BatchWorkspace wrong(other, 1);
  abdyn::RowMatrixXd Q(n, (steps + 1) * model.nq()), V(n, (steps + 1) * model.nv());
  BOOST_CHECK_EXCEPTION(
      abdyn::rolloutBatch(model, wrong, abdyn::BatchIntegrator::SemiImplicitEuler, s.Q, s.V, tau, steps, h, Q, V),
      abdyn::InvalidArgument, [](const abdyn::InvalidArgument& e) { return std::string(e.what()).find("'workspace'") != std::string::npos; });
}
