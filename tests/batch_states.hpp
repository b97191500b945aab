#pragma once
// Random batches of states for the batched calls' tests (test_batch.cpp, test_batch_pool.cpp).

#include <random>

#include "abdyn/abdyn.hpp"

namespace abdyn::test {

/// N states of a model, one per row: Q (N x nq), V and W (N x nv; W is tau or qdd).
struct States {
  RowMatrixXd Q, V, W;
};

/// N random states: q from randomConfiguration, v and tau (or qdd) standard normal; fixed seed.
inline States randomStates(const Model& model, Eigen::Index n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal;
  States s{RowMatrixXd(n, model.nq()), RowMatrixXd(n, model.nv()), RowMatrixXd(n, model.nv())};
  for (Eigen::Index k = 0; k < n; ++k) {
    s.Q.row(k) = randomConfiguration(model, rng).transpose();
    for (Eigen::Index j = 0; j < model.nv(); ++j) {
      s.V(k, j) = normal(rng);
      s.W(k, j) = normal(rng);
    }
  }
  return s;
}

}  // namespace abdyn::test
