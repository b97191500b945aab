#define BOOST_TEST_MODULE batch
#include <boost/test/unit_test.hpp>

#include <random>

#include "abdyn/abdyn.hpp"

namespace {

std::string modelPath(const char* name) { return std::string(ABDYN_SOURCE_DIR) + "/models/" + name; }

/// N random states of a model: q from randomConfiguration, v, tau (or qdd) standard normal; fixed seed.
struct States {
  abdyn::RowMatrixXd Q, V, W;
};

States randomStates(const abdyn::Model& model, Eigen::Index n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal;
  States s{abdyn::RowMatrixXd(n, model.nq()), abdyn::RowMatrixXd(n, model.nv()), abdyn::RowMatrixXd(n, model.nv())};
  for (Eigen::Index k = 0; k < n; ++k) {
    s.Q.row(k) = abdyn::randomConfiguration(model, rng).transpose();
    for (Eigen::Index j = 0; j < model.nv(); ++j) {
      s.V(k, j) = normal(rng);
      s.W(k, j) = normal(rng);
    }
  }
  return s;
}

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

}  // namespace

// The batched calls must equal the serial loop over one Data bit for bit, whatever the thread count:
// each state is computed by the same code on a Data of its own, and the blocks only decide which thread
// runs it (batch.hpp).
BOOST_AUTO_TEST_CASE(batched_dynamics_equal_the_serial_loop_bit_for_bit) {
  const abdyn::Model& model = humanoid();
  const Eigen::Index n = 37, nv = model.nv();
  const States s = randomStates(model, n, 7);
  abdyn::Data data(model);
  abdyn::RowMatrixXd qdd_loop(n, nv), tau_loop(n, nv), M_loop(n, nv * nv);
  for (Eigen::Index k = 0; k < n; ++k) {
    const Eigen::VectorXd q = s.Q.row(k).transpose(), v = s.V.row(k).transpose(), w = s.W.row(k).transpose();
    qdd_loop.row(k) = abdyn::forwardDynamics(model, data, q, v, w).transpose();
    tau_loop.row(k) = abdyn::inverseDynamics(model, data, q, v, w).transpose();
    const Eigen::MatrixXd& M = abdyn::massMatrix(model, data, q);
    for (Eigen::Index i = 0; i < nv; ++i) M_loop.row(k).segment(i * nv, nv) = M.row(i);
  }
  for (const int threads : kThreadCounts) {
    BOOST_TEST_CONTEXT("threads " << threads) {
      abdyn::RowMatrixXd qdd(n, nv), tau(n, nv), M(n, nv * nv);
      abdyn::forwardDynamicsBatch(model, s.Q, s.V, s.W, qdd, threads);
      abdyn::inverseDynamicsBatch(model, s.Q, s.V, s.W, tau, threads);
      abdyn::massMatrixBatch(model, s.Q, M, threads);
      BOOST_TEST((qdd.array() == qdd_loop.array()).all());
      BOOST_TEST((tau.array() == tau_loop.array()).all());
      BOOST_TEST((M.array() == M_loop.array()).all());
    }
  }
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
