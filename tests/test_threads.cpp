#define BOOST_TEST_MODULE threads
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <limits>
#include <thread>

#include "abdyn/abdyn.hpp"

namespace {

// Everything one state produces through the hot algorithms, for bit-for-bit comparison.
struct Results {
  Eigen::VectorXd qdd, tau, qdd_crba;
  Eigen::MatrixXd M;
};

Results evaluate(const abdyn::Model& model, abdyn::Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                 const Eigen::VectorXd& tau) {
  Results r;
  r.qdd = abdyn::forwardDynamics(model, data, q, v, tau);
  r.tau = abdyn::inverseDynamics(model, data, q, v, r.qdd);
  r.M = abdyn::massMatrix(model, data, q);
  r.qdd_crba = abdyn::forwardDynamicsCrba(model, data, q, v, tau);
  return r;
}

std::string modelPath(const char* name) { return std::string(ABDYN_SOURCE_DIR) + "/models/" + name; }

}  // namespace

// One Model shared read-only by four threads, each with its own Data, gives the serial results bit
// for bit (the humanoid on a floating base, 200 random states per thread, ABA, RNEA, CRBA and the
// CRBA-based forward dynamics).
BOOST_AUTO_TEST_CASE(shared_model_per_thread_data) {
  abdyn::UrdfOptions options;
  options.floating_base = true;
  const abdyn::Model model = abdyn::loadUrdf(modelPath("humanoid.urdf"), options);
  constexpr int kThreads = 4, kStates = 200;
  std::mt19937 rng(5);
  std::vector<Eigen::VectorXd> q, v, tau;
  for (int s = 0; s < kThreads * kStates; ++s) {
    q.push_back(abdyn::randomConfiguration(model, rng));
    v.push_back(Eigen::VectorXd::Random(model.nv()));
    tau.push_back(Eigen::VectorXd::Random(model.nv()));
  }
  std::vector<Results> serial(q.size()), parallel(q.size());
  abdyn::Data data(model);
  for (size_t s = 0; s < q.size(); ++s) serial[s] = evaluate(model, data, q[s], v[s], tau[s]);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      abdyn::Data own(model);
      for (int s = t * kStates; s < (t + 1) * kStates; ++s) parallel[s] = evaluate(model, own, q[s], v[s], tau[s]);
    });
  }
  for (std::thread& th : threads) th.join();
  for (size_t s = 0; s < q.size(); ++s) {
    BOOST_TEST((serial[s].qdd - parallel[s].qdd).norm() == 0.0);
    BOOST_TEST((serial[s].tau - parallel[s].tau).norm() == 0.0);
    BOOST_TEST((serial[s].M - parallel[s].M).norm() == 0.0);
    BOOST_TEST((serial[s].qdd_crba - parallel[s].qdd_crba).norm() == 0.0);
  }
}

// URDF loading from several threads at once: the loader shares nothing between calls but the logger
// (urdfdom's process-wide console_bridge handler, captured under a lock, is gone with urdfdom). Threads
// loading good files get the serially loaded model, and
// threads loading broken files get exactly the message of their own file (each file is broken in its
// own way, named in its message), never another thread's.
BOOST_AUTO_TEST_CASE(concurrent_urdf_loading) {
  const char* files[] = {"humanoid.urdf", "quadruped.urdf", "iiwa7.urdf"};
  std::vector<abdyn::Model> serial;
  std::vector<Eigen::MatrixXd> serial_M;
  for (const char* f : files) {
    serial.push_back(abdyn::loadUrdf(modelPath(f)));
    abdyn::Data data(serial.back());
    serial_M.push_back(abdyn::massMatrix(serial.back(), data, abdyn::neutral(serial.back())));
  }
  constexpr int kBrokenThreads = 2, kThreads = 5, kRounds = 5;
  const auto broken = [](int t) {
    return "<robot name=\"broken" + std::to_string(t) + "\"><link name=\"link" + std::to_string(t) +
           "\"><inertial><mass value=\"oops" + std::to_string(t) + "\"/></inertial></link></robot>";
  };
  const auto messageOf = [](const std::string& xml) {
    try {
      abdyn::loadUrdfString(xml);
    } catch (const abdyn::Error& e) {
      return std::string(e.what());
    }
    return std::string("(loaded)");
  };
  std::vector<std::string> expected;
  for (int t = 0; t < kBrokenThreads; ++t) {
    expected.push_back(messageOf(broken(t)));
    BOOST_TEST(expected[t].find("oops" + std::to_string(t)) != std::string::npos, expected[t]);
  }
  BOOST_TEST(expected[0] != expected[1]);

  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::vector<std::string>> messages(kBrokenThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRounds; ++round) {
        if (t < kBrokenThreads) {
          messages[t].push_back(messageOf(broken(t)));
          continue;
        }
        const int f = (t + round) % 3;
        const abdyn::Model model = abdyn::loadUrdf(modelPath(files[f]));
        abdyn::Data data(model);
        if (model.nbodies() != serial[f].nbodies() || model.nv() != serial[f].nv() ||
            abdyn::massMatrix(model, data, abdyn::neutral(model)) != serial_M[f]) {
          ++mismatches[t];
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kBrokenThreads; ++t) {
    BOOST_TEST(messages[t].size() == static_cast<std::size_t>(kRounds));
    for (const std::string& m : messages[t]) BOOST_TEST(m == expected[t]);
  }
  for (int t = kBrokenThreads; t < kThreads; ++t) BOOST_TEST(mismatches[t] == 0);
}

// abdyn::rollout on three threads (under ThreadSanitizer in CI): the humanoid ragdoll with limits and
// ground contacts, 6 runs of 30 steps, gives the one-thread results bit for bit (test_rollout.cpp
// compares against a serial loop; here the point is that the threads share nothing mutable).
BOOST_AUTO_TEST_CASE(rollout_threads_share_nothing) {
  abdyn::UrdfOptions options;
  options.floating_base = true;
  const abdyn::Model model = abdyn::loadUrdf(modelPath("humanoid.urdf"), options);
  abdyn::SimulatorSettings settings;
  settings.joint_limits = true;
  settings.ground = true;
  settings.contact.height = -0.95;
  constexpr int N = 6, T = 30;
  std::mt19937 rng(6);
  std::uniform_real_distribution<double> unit(-0.5, 0.5);
  abdyn::RowMatrixXd q0(N, model.nq()), v0(N, model.nv());
  for (int n = 0; n < N; ++n) {
    q0.row(n) = abdyn::neutral(model).transpose();
    for (int k = 0; k < model.nv(); ++k) v0(n, k) = unit(rng);
  }
  v0.col(5).setConstant(-1.0);  // falling onto the ground
  const abdyn::RowMatrixXd tau = abdyn::RowMatrixXd::Zero(N, T * model.nv());
  abdyn::RowMatrixXd Q1(N, (T + 1) * model.nq()), V1(N, (T + 1) * model.nv()), Q3 = Q1, V3 = V1;
  abdyn::rollout(model, settings, q0, v0, tau, T, 2e-3, 1, Q1, V1);
  abdyn::rollout(model, settings, q0, v0, tau, T, 2e-3, 3, Q3, V3);
  BOOST_TEST((Q1.array() == Q3.array()).all());
  BOOST_TEST((V1.array() == V3.array()).all());
}

// The batched calls' kept threads (BatchWorkspace with three threads): two user threads, each with its own
// workspace, call ABA, RNEA and CRBA on it in a row and after pauses longer than the workers' spin (so
// that they sleep and are woken), and get the single-threaded workspace's results bit for bit; an error
// in one block is rethrown on the calling thread. Under ThreadSanitizer this is the pool's race check.
BOOST_AUTO_TEST_CASE(batch_workspace_threads) {
  abdyn::UrdfOptions options;
  options.floating_base = true;
  const abdyn::Model model = abdyn::loadUrdf(modelPath("humanoid.urdf"), options);
  const Eigen::Index n = 29;
  std::mt19937 rng(6);
  abdyn::RowMatrixXd Q(n, model.nq()), V = abdyn::RowMatrixXd::Random(n, model.nv());
  const abdyn::RowMatrixXd W = abdyn::RowMatrixXd::Random(n, model.nv());
  for (Eigen::Index k = 0; k < n; ++k) Q.row(k) = abdyn::randomConfiguration(model, rng).transpose();
  abdyn::RowMatrixXd qdd(n, model.nv()), tau(n, model.nv()), M(n, model.nv() * model.nv());
  abdyn::BatchWorkspace one(model);
  abdyn::forwardDynamicsBatch(model, one, Q, V, W, qdd);
  abdyn::inverseDynamicsBatch(model, one, Q, V, W, tau);
  abdyn::massMatrixBatch(model, one, Q, M);
  constexpr int kUsers = 2, kCalls = 4;
  std::vector<int> mismatches(kUsers, 0);
  std::vector<std::thread> users;
  for (int u = 0; u < kUsers; ++u) {
    users.emplace_back([&, u] {
      abdyn::BatchWorkspace workspace(model, 3);
      abdyn::RowMatrixXd a(n, model.nv()), b(n, model.nv()), m(n, model.nv() * model.nv());
      for (int call = 0; call < kCalls; ++call) {
        abdyn::forwardDynamicsBatch(model, workspace, Q, V, W, a);
        abdyn::inverseDynamicsBatch(model, workspace, Q, V, W, b);
        abdyn::massMatrixBatch(model, workspace, Q, m);
        if (a != qdd || b != tau || m != M) ++mismatches[u];
        if (call % 2 == 1) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    });
  }
  for (std::thread& t : users) t.join();
  for (int u = 0; u < kUsers; ++u) BOOST_TEST(mismatches[u] == 0);
  abdyn::BatchWorkspace workspace(model, 3);
  abdyn::RowMatrixXd V_bad = V;
  V_bad(20, 0) = std::numeric_limits<double>::quiet_NaN();  // in the third block (rows 20 .. 28)
  const bool checked = abdyn::checkedMode();
  abdyn::setCheckedMode(true);
  BOOST_CHECK_EXCEPTION(abdyn::forwardDynamicsBatch(model, workspace, Q, V_bad, W, qdd), abdyn::Error,
                        [](const abdyn::Error& e) { return std::string(e.what()).find("state 20") != std::string::npos; });
  abdyn::setCheckedMode(checked);
}
