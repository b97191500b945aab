#define BOOST_TEST_MODULE threads
#include <boost/test/unit_test.hpp>

#include <thread>

#include "abdyn/abdyn.hpp"

// One Model shared read-only by four threads, each with its own Data, gives the serial results bit
// for bit (the humanoid on a floating base, 200 random states per thread).
BOOST_AUTO_TEST_CASE(shared_model_per_thread_data) {
  abdyn::UrdfOptions options;
  options.floating_base = true;
  const abdyn::Model model = abdyn::loadUrdf(std::string(ABDYN_SOURCE_DIR) + "/models/humanoid.urdf", options);
  constexpr int kThreads = 4, kStates = 200;
  std::mt19937 rng(5);
  std::vector<Eigen::VectorXd> q, v, tau;
  for (int s = 0; s < kThreads * kStates; ++s) {
    q.push_back(abdyn::randomConfiguration(model, rng));
    v.push_back(Eigen::VectorXd::Random(model.nv()));
    tau.push_back(Eigen::VectorXd::Random(model.nv()));
  }
  std::vector<Eigen::VectorXd> serial(q.size()), parallel(q.size());
  abdyn::Data data(model);
  for (size_t s = 0; s < q.size(); ++s) serial[s] = abdyn::forwardDynamics(model, data, q[s], v[s], tau[s]);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      abdyn::Data own(model);
      for (int s = t * kStates; s < (t + 1) * kStates; ++s) parallel[s] = abdyn::forwardDynamics(model, own, q[s], v[s], tau[s]);
    });
  }
  for (std::thread& th : threads) th.join();
  for (size_t s = 0; s < q.size(); ++s) BOOST_TEST((serial[s] - parallel[s]).norm() == 0.0);
}
