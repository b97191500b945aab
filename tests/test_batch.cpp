#define BOOST_TEST_MODULE batch
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <random>
#include <thread>

#include "abdyn/abdyn.hpp"
#include "batch_states.hpp"

namespace {

std::string modelPath(const char* name) { return std::string(ABDYN_SOURCE_DIR) + "/models/" + name; }

using abdyn::test::randomStates;
using abdyn::test::States;

const abdyn::Model& humanoid() {
  static const abdyn::Model model = [] {
    abdyn::UrdfOptions options;
    options.floating_base = true;
    return abdyn::loadUrdf(modelPath("humanoid.urdf"), options);
  }();
  return model;
}

// Thread counts that split 37 states unevenly (37 is prime), one per state, more threads than states,
// and the hardware default.
const int kThreadCounts[] = {1, 2, 3, 4, 37, 64, 0};

/// The single-state calls, state by state: the reference the batched calls must agree with.
struct Results {
  abdyn::RowMatrixXd qdd, tau, M;
};

Results serialLoop(const abdyn::Model& model, const States& s, const abdyn::DynamicsOptions& options = {}) {
  const Eigen::Index n = s.Q.rows(), nv = model.nv();
  abdyn::Data data(model);
  Results r{abdyn::RowMatrixXd(n, nv), abdyn::RowMatrixXd(n, nv), abdyn::RowMatrixXd(n, nv * nv)};
  for (Eigen::Index k = 0; k < n; ++k) {
    const Eigen::VectorXd q = s.Q.row(k).transpose(), v = s.V.row(k).transpose(), w = s.W.row(k).transpose();
    r.qdd.row(k) = abdyn::forwardDynamics(model, data, q, v, w, options).transpose();
    r.tau.row(k) = abdyn::inverseDynamics(model, data, q, v, w, options).transpose();
    const Eigen::MatrixXd& M = abdyn::massMatrix(model, data, q, options);
    for (Eigen::Index i = 0; i < nv; ++i) r.M.row(k).segment(i * nv, nv) = M.row(i);
  }
  return r;
}

Results batched(const abdyn::Model& model, const States& s, int threads, const abdyn::DynamicsOptions& options = {}) {
  const Eigen::Index n = s.Q.rows(), nv = model.nv();
  Results r{abdyn::RowMatrixXd(n, nv), abdyn::RowMatrixXd(n, nv), abdyn::RowMatrixXd(n, nv * nv)};
  abdyn::forwardDynamicsBatch(model, s.Q, s.V, s.W, r.qdd, threads, options);
  abdyn::inverseDynamicsBatch(model, s.Q, s.V, s.W, r.tau, threads, options);
  abdyn::massMatrixBatch(model, s.Q, r.M, threads, options);
  return r;
}

/// Row by row, |batched - single| <= tolerance (1 + |single|) in the max norm of the row.
void checkAgreement(const abdyn::RowMatrixXd& batch, const abdyn::RowMatrixXd& single, double tolerance) {
  for (Eigen::Index k = 0; k < batch.rows(); ++k) {
    const double error = (batch.row(k) - single.row(k)).cwiseAbs().maxCoeff();
    const double scale = 1.0 + single.row(k).cwiseAbs().maxCoeff();
    BOOST_TEST(error <= tolerance * scale, "state " << k << ": error " << error << ", scale " << scale);
  }
}

/// The agreement bound with the single-state calls: 1e-13 relative, the bound batch.hpp promises, in
/// optimised builds (NDEBUG: Release, RelWithDebInfo). Debug builds, the sanitizer build among them
/// (-O1), compile the single-state code with other vectorisation and FMA contraction, which moves its
/// result by up to 1.3e-13 of the scale (measured on the random trees below), so they check 5e-13.
#ifdef NDEBUG
constexpr double kAgreement = 1e-13;
#else
constexpr double kAgreement = 5e-13;
#endif

bool identical(const abdyn::RowMatrixXd& a, const abdyn::RowMatrixXd& b) { return (a.array() == b.array()).all(); }

/// The instruction sets to try: every one the machine has.
const abdyn::BatchSimd kSimd[] = {abdyn::BatchSimd::Widest, abdyn::BatchSimd::Avx2, abdyn::BatchSimd::Sse4,
                                  abdyn::BatchSimd::Portable};

/// Restores the widest instruction set when a test ends, whatever it set.
struct SimdGuard {
  ~SimdGuard() { abdyn::setBatchSimd(abdyn::BatchSimd::Widest); }
};

}  // namespace

// Agreement with the single-state calls on random trees of every joint type, with and without a floating
// base, joint damping, armature and implicit damping, on every instruction set the machine has. The
// tolerance: the kernels' sin and cos are within 1 ulp of the C library's, their sums are fused or
// ordered differently, and CRBA takes another recursion (batch.hpp); the resulting differences are a few
// ulp of the largest term times the condition of the recursion, so 1e-13 relative (the bound the batched
// calls promise) holds with a margin on these models in optimised builds (kAgreement).
BOOST_AUTO_TEST_CASE(batched_dynamics_agree_with_the_single_state_calls) {
  SimdGuard guard;
  std::mt19937 rng(11);
  std::vector<abdyn::Model> models;
  for (const bool floating : {false, true}) {
    models.push_back(abdyn::randomTree({12, false, floating, true, true}, rng));
    models.push_back(abdyn::randomTree({8, true, floating, true, true}, rng));
  }
  models.push_back(humanoid());
  abdyn::DynamicsOptions implicit;
  implicit.implicit_damping_step = 0.01;
  abdyn::DynamicsOptions bare;
  bare.armature = false;
  bare.damping = false;
  for (const abdyn::BatchSimd simd : kSimd) {
    abdyn::setBatchSimd(simd);
    for (std::size_t m = 0; m < models.size(); ++m) {
      for (const abdyn::DynamicsOptions& options : {abdyn::DynamicsOptions{}, implicit, bare}) {
        BOOST_TEST_CONTEXT(abdyn::batchSimdName() << ", model " << m << ", h " << options.implicit_damping_step
                                                  << ", armature " << options.armature) {
          const States s = randomStates(models[m], 13, static_cast<unsigned>(20 + m));
          const Results single = serialLoop(models[m], s, options), batch = batched(models[m], s, 2, options);
          checkAgreement(batch.qdd, single.qdd, kAgreement);
          checkAgreement(batch.tau, single.tau, kAgreement);
          checkAgreement(batch.M, single.M, kAgreement);
        }
      }
    }
  }
}

// A state's result is the same bit for bit whatever the batch size (tails of every length), its lane (the
// same states shifted by one row at a time), the padding of the last pack and the thread count.
BOOST_AUTO_TEST_CASE(a_states_result_depends_on_its_row_only) {
  SimdGuard guard;
  std::mt19937 rng(12);
  const abdyn::Model model = abdyn::randomTree({9, false, true, true, true}, rng);
  const Eigen::Index n = 37;  // prime: every thread count and pack width leaves a tail
  const States s = randomStates(model, n, 13);
  for (const abdyn::BatchSimd simd : kSimd) {
    abdyn::setBatchSimd(simd);
    BOOST_TEST_CONTEXT(abdyn::batchSimdName()) {
      const Results all = batched(model, s, 1);
      for (const int threads : kThreadCounts) {
        const Results r = batched(model, s, threads);
        BOOST_TEST(identical(r.qdd, all.qdd), "threads " << threads);
        BOOST_TEST(identical(r.tau, all.tau), "threads " << threads);
        BOOST_TEST(identical(r.M, all.M), "threads " << threads);
      }
      for (Eigen::Index first = 0; first < 9; ++first) {
        for (const Eigen::Index size : {Eigen::Index(1), Eigen::Index(3), Eigen::Index(8), Eigen::Index(11)}) {
          const States part{s.Q.middleRows(first, size), s.V.middleRows(first, size), s.W.middleRows(first, size)};
          const Results r = batched(model, part, 1);
          BOOST_TEST(identical(r.qdd, all.qdd.middleRows(first, size)), "rows " << first << " + " << size);
          BOOST_TEST(identical(r.tau, all.tau.middleRows(first, size)), "rows " << first << " + " << size);
          BOOST_TEST(identical(r.M, all.M.middleRows(first, size)), "rows " << first << " + " << size);
        }
      }
    }
  }
}

// The instruction sets: a cap takes effect, the portable path has at most two lanes, and Widest restores the start.
BOOST_AUTO_TEST_CASE(the_instruction_set_can_be_capped) {
  SimdGuard guard;
  const int widest = abdyn::batchLanes();
  BOOST_TEST_MESSAGE("batched kernels: " << abdyn::batchSimdName() << ", " << widest << " lanes");
  abdyn::setBatchSimd(abdyn::BatchSimd::Avx2);
  BOOST_TEST(abdyn::batchLanes() <= 4);
  BOOST_TEST(abdyn::batchLanes() <= widest);
  abdyn::setBatchSimd(abdyn::BatchSimd::Portable);
  BOOST_TEST(abdyn::batchLanes() <= 2);
  const std::string portable = abdyn::batchSimdName();
  BOOST_TEST((portable == "EMU128" || portable == "SCALAR"), portable);
  abdyn::setBatchSimd(abdyn::BatchSimd::Widest);
  BOOST_TEST(abdyn::batchLanes() == widest);
#if defined(__x86_64__) && !defined(__AVX512F__) && defined(ABDYN_SIMD_ALL_TARGETS)
  // A build without -march=native (and with every target, ABDYN_SIMD_TARGETS) still reaches AVX-512 (Highway's AVX3: F, VL, DQ, BW) on a CPU that has it.
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512bw")) {
    BOOST_TEST(widest == 8);
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    BOOST_TEST(widest == 4);
  }
#endif
}

// The calls with a workspace give the threaded calls' results, and refuse a workspace of another model.
BOOST_AUTO_TEST_CASE(a_workspace_gives_the_same_results) {
  const abdyn::Model& model = humanoid();
  const States s = randomStates(model, 11, 16);
  const Results threaded = batched(model, s, 2);
  abdyn::BatchWorkspace workspace(model);
  Results r{abdyn::RowMatrixXd(11, model.nv()), abdyn::RowMatrixXd(11, model.nv()),
            abdyn::RowMatrixXd(11, model.nv() * model.nv())};
  abdyn::forwardDynamicsBatch(model, workspace, s.Q, s.V, s.W, r.qdd);
  abdyn::inverseDynamicsBatch(model, workspace, s.Q, s.V, s.W, r.tau);
  abdyn::massMatrixBatch(model, workspace, s.Q, r.M);
  BOOST_TEST(identical(r.qdd, threaded.qdd));
  BOOST_TEST(identical(r.tau, threaded.tau));
  BOOST_TEST(identical(r.M, threaded.M));
  std::mt19937 rng(17);
  const abdyn::Model other = abdyn::randomTree({4, true, false, false, false}, rng);
  abdyn::BatchWorkspace foreign(other);
  BOOST_CHECK_EXCEPTION(abdyn::forwardDynamicsBatch(model, foreign, s.Q, s.V, s.W, r.qdd), abdyn::InvalidArgument,
                        [](const abdyn::InvalidArgument& e) {
                          return std::string(e.what()).find("'workspace' was built for another model") != std::string::npos;
                        });
  // Same structure, other parameters: the workspace's copy of gravity would give another model's answer.
  const abdyn::Model moon = model.withGravity(abdyn::Vector3(0.0, 0.0, -1.62));
  BOOST_TEST(moon.structureKey() == model.structureKey());
  BOOST_TEST(abdyn::Model(model).parameterKey() == model.parameterKey());
  BOOST_TEST(moon.parameterKey() != model.parameterKey());
  BOOST_CHECK_EXCEPTION(abdyn::forwardDynamicsBatch(moon, workspace, s.Q, s.V, s.W, r.qdd), abdyn::InvalidArgument,
                        [](const abdyn::InvalidArgument& e) {
                          return std::string(e.what()).find("other parameters") != std::string::npos;
                        });
}

// A workspace's kept threads give the results of the calling thread alone, bit for bit, call after call
// (the workers sleep between calls spaced out and spin between calls in a row), and more threads than
// states leave the spare ones idle.
BOOST_AUTO_TEST_CASE(a_workspaces_threads_give_the_same_results) {
  std::mt19937 rng(18);
  const abdyn::Model model = abdyn::randomTree({9, false, true, true, true}, rng);
  const States s = randomStates(model, 37, 19);
  const Results one = batched(model, s, 1);
  for (const int threads : {2, 3, 64}) {
    abdyn::BatchWorkspace workspace(model, threads);
    BOOST_TEST(workspace.threads() == threads);
    for (int call = 0; call < 3; ++call) {
      Results r{abdyn::RowMatrixXd(37, model.nv()), abdyn::RowMatrixXd(37, model.nv()),
                abdyn::RowMatrixXd(37, model.nv() * model.nv())};
      abdyn::forwardDynamicsBatch(model, workspace, s.Q, s.V, s.W, r.qdd);
      abdyn::inverseDynamicsBatch(model, workspace, s.Q, s.V, s.W, r.tau);
      abdyn::massMatrixBatch(model, workspace, s.Q, r.M);
      BOOST_TEST(identical(r.qdd, one.qdd), "threads " << threads << ", call " << call);
      BOOST_TEST(identical(r.tau, one.tau), "threads " << threads << ", call " << call);
      BOOST_TEST(identical(r.M, one.M), "threads " << threads << ", call " << call);
      if (call == 1) std::this_thread::sleep_for(std::chrono::milliseconds(5));  // past the workers' spin
    }
    const abdyn::BatchWorkspace moved = std::move(workspace);
    BOOST_TEST(moved.threads() == threads);
  }
  BOOST_TEST(abdyn::BatchWorkspace(model, 0).threads() == abdyn::batchThreads(0, 1000000));
}

// A singular joint-space inertia (a massless free body carrying a pendulum: the free joint turns the pole about
// its hinge at no cost; test_dynamics' singular_mass_matrix_is_refused) is refused as the single-state ABA
// refuses it, naming the joint and the lowest row, on every thread count.
BOOST_AUTO_TEST_CASE(a_singular_state_is_refused) {
  abdyn::ModelBuilder builder("free_pendulum");
  abdyn::JointSpec free;
  free.type = abdyn::JointType::Floating;
  free.name = "root_joint";
  const int base = builder.addBody(0, free, abdyn::Plx(), abdyn::RigidBodyInertia(), "base");
  abdyn::JointSpec hinge;
  hinge.axis = abdyn::Vector3::UnitY();
  hinge.name = "hinge";
  builder.addBody(base, hinge, abdyn::Plx(),
                  abdyn::RigidBodyInertia(1.0, abdyn::Vector3(0, 0, -1), 0.01 * abdyn::Matrix3::Identity()), "pole");
  const abdyn::Model model = builder.build();
  const States s = randomStates(model, 11, 18);
  abdyn::RowMatrixXd qdd(11, model.nv());
  for (const int threads : {1, 3}) {
    BOOST_CHECK_EXCEPTION(abdyn::forwardDynamicsBatch(model, s.Q, s.V, s.W, qdd, threads), abdyn::Error,
                          [](const abdyn::Error& e) {
                            const std::string what = e.what();
                            return what.rfind("abdyn::forwardDynamicsBatch: state 0: abdyn::forwardDynamics: joint 'root_joint'", 0) == 0 &&
                                   what.find("singular") != std::string::npos;
                          });
  }
}

BOOST_AUTO_TEST_CASE(an_unknown_instruction_set_is_refused) {
  BOOST_CHECK_THROW(abdyn::setBatchSimd(static_cast<abdyn::BatchSimd>(17)), abdyn::InvalidArgument);
  BOOST_TEST(abdyn::batchLanes() >= 1);
}

// rolloutBatch against a loop of the integrators' own steps, run by run: semi-implicit Euler and RK4 on a
// floating tree of every joint type, 20 steps of 1 ms under random joint forces. The accelerations agree to
// 1e-13 relative (above); over 20 steps of h = 1e-3 with O(1) Lipschitz constants they move the states by
// less than 20 h times that, so 1e-13 relative on the states leaves a margin. Thread counts and batch sizes
// leave every trajectory bit for bit the same.
BOOST_AUTO_TEST_CASE(batched_rollouts_agree_with_the_integrators) {
  std::mt19937 rng(19);
  const abdyn::Model model = abdyn::randomTree({8, false, true, true, true}, rng);
  const int n = 11, steps = 20, nq = model.nq(), nv = model.nv();
  const double h = 1e-3;
  const States s = randomStates(model, n, 21);
  const abdyn::RowMatrixXd tau = abdyn::RowMatrixXd::Random(n, steps * nv);
  for (const abdyn::BatchIntegrator integrator : {abdyn::BatchIntegrator::SemiImplicitEuler, abdyn::BatchIntegrator::RungeKutta4}) {
    BOOST_TEST_CONTEXT("integrator " << static_cast<int>(integrator)) {
      abdyn::RowMatrixXd Q(n, (steps + 1) * nq), V(n, (steps + 1) * nv);
      abdyn::rolloutBatch(model, integrator, s.Q, s.V, tau, steps, h, Q, V, 2);
      abdyn::Data data(model);
      abdyn::SemiImplicitEuler euler(model);
      abdyn::RungeKutta4 rk4(model);
      abdyn::RowMatrixXd Q_loop(n, (steps + 1) * nq), V_loop(n, (steps + 1) * nv);
      for (int r = 0; r < n; ++r) {
        Eigen::VectorXd q = s.Q.row(r).transpose(), v = s.V.row(r).transpose();
        Q_loop.row(r).head(nq) = q.transpose();
        V_loop.row(r).head(nv) = v.transpose();
        for (int t = 0; t < steps; ++t) {
          const Eigen::VectorXd tau_t = tau.row(r).segment(t * nv, nv).transpose();
          if (integrator == abdyn::BatchIntegrator::SemiImplicitEuler) {
            euler.step(model, data, q, v, tau_t, h);
          } else {
            rk4.step(model, data, q, v, tau_t, h);
          }
          Q_loop.row(r).segment((t + 1) * nq, nq) = q.transpose();
          V_loop.row(r).segment((t + 1) * nv, nv) = v.transpose();
        }
      }
      checkAgreement(Q, Q_loop, 1e-13);
      checkAgreement(V, V_loop, 1e-13);
      for (const int threads : {1, 3, 11}) {
        abdyn::RowMatrixXd Q2(n, (steps + 1) * nq), V2(n, (steps + 1) * nv);
        abdyn::rolloutBatch(model, integrator, s.Q, s.V, tau, steps, h, Q2, V2, threads);
        BOOST_TEST(identical(Q2, Q), "threads " << threads);
        BOOST_TEST(identical(V2, V), "threads " << threads);
      }
      abdyn::RowMatrixXd Q3(3, (steps + 1) * nq), V3(3, (steps + 1) * nv);
      abdyn::rolloutBatch(model, integrator, s.Q.middleRows(5, 3), s.V.middleRows(5, 3), tau.middleRows(5, 3), steps, h, Q3, V3, 1);
      BOOST_TEST(identical(Q3, Q.middleRows(5, 3)));
      BOOST_TEST(identical(V3, V.middleRows(5, 3)));
    }
  }
}

BOOST_AUTO_TEST_CASE(batched_rollouts_refuse_bad_arguments) {
  const abdyn::Model& model = humanoid();
  const States s = randomStates(model, 3, 22);
  const int steps = 2;
  abdyn::RowMatrixXd tau = abdyn::RowMatrixXd::Zero(3, steps * model.nv());
  abdyn::RowMatrixXd Q(3, (steps + 1) * model.nq()), V(3, (steps + 1) * model.nv());
  const auto throws_naming = [&](const auto& call, const std::string& needle) {
    try {
      call();
    } catch (const abdyn::InvalidArgument& e) {
      return std::string(e.what()).find(needle) != std::string::npos;
    }
    return false;
  };
  const auto euler = abdyn::BatchIntegrator::SemiImplicitEuler;
  BOOST_TEST(throws_naming([&] { abdyn::rolloutBatch(model, euler, s.Q, s.V, tau, steps, 0.0, Q, V); }, "'h'"));
  BOOST_TEST(throws_naming([&] { abdyn::rolloutBatch(model, euler, s.Q, s.V, tau, steps, -1e-3, Q, V); }, "'h'"));
  BOOST_TEST(throws_naming([&] { abdyn::rolloutBatch(model, euler, s.Q, s.V, tau, -1, 1e-3, Q, V); }, "'steps'"));
  BOOST_TEST(throws_naming([&] { abdyn::rolloutBatch(model, euler, s.Q, s.V, tau.leftCols(3), steps, 1e-3, Q, V); }, "'tau' must be"));
  BOOST_TEST(throws_naming([&] { abdyn::rolloutBatch(model, euler, s.Q, s.V, tau, steps, 1e-3, Q.leftCols(4), V); }, "'Q' must be"));
  BOOST_TEST(throws_naming([&] { abdyn::rolloutBatch(model, euler, s.V, s.V, tau, steps, 1e-3, Q, V); }, "'q0' must be"));
  BOOST_TEST(throws_naming([&] { abdyn::rolloutBatch(model, static_cast<abdyn::BatchIntegrator>(9), s.Q, s.V, tau, steps, 1e-3, Q, V); },
                           "'integrator'"));
  const bool checked = abdyn::checkedMode();
  abdyn::setCheckedMode(true);
  abdyn::RowMatrixXd bad = s.Q;
  bad(2, model.joint("root_joint").idx_q + 3) = 0.0;  // a quaternion of norm below 1
  BOOST_TEST(throws_naming([&] { abdyn::rolloutBatch(model, euler, bad, s.V, tau, steps, 1e-3, Q, V); }, "state 2: "));
  abdyn::setCheckedMode(checked);
}

// Joint angles beyond the polynomial sine's range (|q| > 39000) take the C library's sine in their own lane.
BOOST_AUTO_TEST_CASE(huge_angles_agree_too) {
  std::mt19937 rng(14);
  const abdyn::Model model = abdyn::randomTree({5, true, false, false, false}, rng);
  States s = randomStates(model, 5, 15);
  s.Q(1, 0) = 1e6 + 0.3;
  s.Q(3, 2) = -5e5;
  const Results single = serialLoop(model, s), batch = batched(model, s, 1);
  checkAgreement(batch.qdd, single.qdd, 1e-13);
  checkAgreement(batch.tau, single.tau, 1e-13);
}

// Independent check of the batch plumbing (rows in, rows out): RNEA of ABA's accelerations gives back
// the joint forces, state by state. 1e-9 relative: cond(M) of the humanoid ~ 1e4 times round-off.
BOOST_AUTO_TEST_CASE(inverse_batch_inverts_forward_batch) {
  const abdyn::Model& model = humanoid();
  const Eigen::Index n = 20;
  const States s = randomStates(model, n, 8);
  abdyn::RowMatrixXd qdd(n, model.nv()), tau(n, model.nv());
  abdyn::forwardDynamicsBatch(model, s.Q, s.V, s.W, qdd, 2);
  abdyn::inverseDynamicsBatch(model, s.Q, s.V, qdd, tau, 3);
  BOOST_TEST((tau - s.W).cwiseAbs().maxCoeff() <= 1e-9 * (1.0 + s.W.cwiseAbs().maxCoeff()));
}

BOOST_AUTO_TEST_CASE(empty_batch_does_nothing) {
  const abdyn::Model& model = humanoid();
  abdyn::RowMatrixXd Q(0, model.nq()), V(0, model.nv()), QDD(0, model.nv());
  BOOST_CHECK_NO_THROW(abdyn::forwardDynamicsBatch(model, Q, V, V, QDD, 2));
}

BOOST_AUTO_TEST_CASE(batch_threads_defaults_and_caps) {
  BOOST_TEST(abdyn::batchThreads(0, 1000) >= 1);
  BOOST_TEST(abdyn::batchThreads(8, 3) == 3);
  BOOST_TEST(abdyn::batchThreads(-1, 0) == 1);
}

BOOST_AUTO_TEST_CASE(wrong_shapes_name_the_argument) {
  const abdyn::Model& model = humanoid();
  const States s = randomStates(model, 4, 9);
  abdyn::RowMatrixXd out(4, model.nv()), short_out(3, model.nv()), M(4, model.nv());
  auto throws_naming = [](const auto& call, const std::string& needle) {
    try {
      call();
    } catch (const abdyn::InvalidArgument& e) {
      return std::string(e.what()).find(needle) != std::string::npos;
    }
    return false;
  };
  BOOST_TEST(throws_naming([&] { abdyn::forwardDynamicsBatch(model, s.V, s.V, s.W, out); }, "'Q' must be 4 x 37"));
  BOOST_TEST(throws_naming([&] { abdyn::forwardDynamicsBatch(model, s.Q, s.V, s.W, short_out); }, "'QDD' must be 4 x 36"));
  BOOST_TEST(throws_naming([&] { abdyn::inverseDynamicsBatch(model, s.Q, s.V, s.W.topRows(2), out); }, "'QDD' must be"));
  BOOST_TEST(throws_naming([&] { abdyn::massMatrixBatch(model, s.Q, M); }, "'M' must be 4 x 1296"));
}

// A failure in one state (here: a zero quaternion, which the kinematics rejects in checked mode) is
// reported with the lowest failing row, whichever thread met it.
BOOST_AUTO_TEST_CASE(a_failing_state_is_named) {
  const abdyn::Model& model = humanoid();
  States s = randomStates(model, 10, 10);
  const int root_quaternion = model.joint("root_joint").idx_q + 3;
  s.Q.row(6).segment(root_quaternion, 4).setZero();
  s.Q.row(8).segment(root_quaternion, 4).setZero();
  abdyn::RowMatrixXd qdd(10, model.nv());
  const bool checked = abdyn::checkedMode();
  abdyn::setCheckedMode(true);
  for (const int threads : {1, 3}) {
    try {
      abdyn::forwardDynamicsBatch(model, s.Q, s.V, s.W, qdd, threads);
      BOOST_ERROR("no exception with threads " << threads);
    } catch (const std::exception& e) {
      BOOST_TEST_CONTEXT(e.what()) { BOOST_TEST(std::string(e.what()).find("forwardDynamicsBatch: state 6: ") != std::string::npos); }
    }
  }
  abdyn::setCheckedMode(checked);
}

// Joint springs (Model::stiffness toward Model::springReference, as MJCF's stiffness and springref) on
// every joint type that has a spring law (all but planar), a floating base included: the batched calls apply them as the single-state ones do
// and agree with them to kAgreement (as in batched_dynamics_agree_with_the_single_state_calls, for the
// same reasons), with the springs on and off, on every instruction set the machine has.
BOOST_AUTO_TEST_CASE(springs_agree_with_the_single_state_calls) {
  SimdGuard guard;
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  abdyn::ModelBuilder builder("springs");
  const abdyn::JointType types[] = {abdyn::JointType::Floating, abdyn::JointType::Revolute,  abdyn::JointType::Revolute,
                                    abdyn::JointType::Prismatic, abdyn::JointType::Prismatic, abdyn::JointType::Helical,
                                    abdyn::JointType::Spherical, abdyn::JointType::Planar};
  int parent = 0;
  for (std::size_t b = 0; b < std::size(types); ++b) {
    abdyn::JointSpec joint;
    joint.type = types[b];
    joint.name = "joint" + std::to_string(b);
    // Bodies 2 and 4 have axis-aligned joints (the kernels' fast paths); the others random axes.
    joint.axis = b == 2 || b == 4 ? abdyn::Vector3::UnitY() : abdyn::Vector3(uniform(rng), uniform(rng), uniform(rng)).normalized();
    joint.axis2 = joint.axis.unitOrthogonal();
    joint.pitch = 0.1;
    joint.stiffness = types[b] == abdyn::JointType::Planar ? 0.0 : 2.0 + static_cast<double>(b);  // no planar law
    joint.damping = 0.1;
    const int nq = types[b] == abdyn::JointType::Floating ? 7 : types[b] == abdyn::JointType::Spherical ? 4
                                                          : types[b] == abdyn::JointType::Planar      ? 3
                                                                                                      : 1;
    joint.spring_reference = Eigen::VectorXd::Zero(nq);
    if (nq >= 4) {  // a unit quaternion (w, x, y, z) last, a position first for the floating joint
      joint.spring_reference.tail<4>() = Eigen::Vector4d(uniform(rng), uniform(rng), uniform(rng), uniform(rng)).normalized();
      if (nq == 7) joint.spring_reference.head<3>() << uniform(rng), uniform(rng), uniform(rng);
    } else {
      for (int c = 0; c < nq; ++c) joint.spring_reference[c] = uniform(rng);
    }
    const abdyn::Plx X_tree(abdyn::Matrix3::Identity(), abdyn::Vector3(0.1, 0.0, -0.3));
    parent = builder.addBody(parent, joint, X_tree,
                             abdyn::RigidBodyInertia(1.0, abdyn::Vector3(0.0, 0.05, -0.2), abdyn::Matrix3::Identity() * 0.02),
                             "body" + std::to_string(b));
  }
  const abdyn::Model model = std::move(builder).build();
  BOOST_TEST_REQUIRE(model.hasSprings());
  abdyn::DynamicsOptions no_springs;
  no_springs.springs = false;
  const States s = randomStates(model, 13, 3);
  for (const abdyn::BatchSimd simd : kSimd) {
    abdyn::setBatchSimd(simd);
    for (const abdyn::DynamicsOptions& options : {abdyn::DynamicsOptions{}, no_springs}) {
      BOOST_TEST_CONTEXT(abdyn::batchSimdName() << ", springs " << options.springs) {
        const Results single = serialLoop(model, s, options), batch = batched(model, s, 2, options);
        checkAgreement(batch.qdd, single.qdd, kAgreement);
        checkAgreement(batch.tau, single.tau, kAgreement);
      }
    }
  }
  // rolloutBatch steps the springs too: semi-implicit Euler against the integrator's own steps (the bound of
  // batched_rollouts_agree_with_the_integrators).
  const int steps = 10, nq = model.nq(), nv = model.nv();
  const double h = 1e-3;
  abdyn::RowMatrixXd Q(s.Q.rows(), (steps + 1) * nq), V(s.Q.rows(), (steps + 1) * nv);
  const abdyn::RowMatrixXd tau = abdyn::RowMatrixXd::Zero(s.Q.rows(), steps * nv);
  abdyn::rolloutBatch(model, abdyn::BatchIntegrator::SemiImplicitEuler, s.Q, s.V, tau, steps, h, Q, V, 1);
  abdyn::Data data(model);
  abdyn::SemiImplicitEuler euler(model);
  for (Eigen::Index r = 0; r < s.Q.rows(); ++r) {
    Eigen::VectorXd q = s.Q.row(r).transpose(), v = s.V.row(r).transpose();
    for (int t = 0; t < steps; ++t) euler.step(model, data, q, v, Eigen::VectorXd::Zero(nv), h);
    const double scale = 1.0 + q.cwiseAbs().maxCoeff() + v.cwiseAbs().maxCoeff();
    BOOST_TEST((Q.row(r).tail(nq).transpose() - q).cwiseAbs().maxCoeff() <= kAgreement * scale, "run " << r);
    BOOST_TEST((V.row(r).tail(nv).transpose() - v).cwiseAbs().maxCoeff() <= kAgreement * scale, "run " << r);
  }
  // The springs matter on these states: the forward dynamics with and without them differ.
  const Results with = serialLoop(model, s), without = serialLoop(model, s, no_springs);
  BOOST_TEST((with.qdd - without.qdd).cwiseAbs().maxCoeff() > 0.1);
}
