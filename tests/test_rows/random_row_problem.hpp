#pragma once
// The starting point the row tests share: a random tree at a random configuration with a random free
// velocity, ready for rows to be built on it.

#include <random>

#include <Eigen/Core>

#include "abdyn/algorithms/aba.hpp"
#include "abdyn/algorithms/jacobian.hpp"
#include "abdyn/algorithms/kinematics.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/data.hpp"
#include "abdyn/model/random_model.hpp"

namespace abdyn::test {

/// A random tree at a random configuration with a random free velocity (entries in [-1, 1]), all drawn
/// from `rng`, after ABA (for the articulated responses), forward kinematics and the world columns (for
/// building rows).
struct RandomRowProblem {
  RandomRowProblem(const RandomTreeOptions& options, std::mt19937& rng)
      : model(randomTree(options, rng)), data(model), q(randomConfiguration(model, rng)), v_free(model.nv()) {
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    for (int k = 0; k < model.nv(); ++k) v_free[k] = uniform(rng);
    forwardDynamics(model, data, q, v_free, Eigen::VectorXd::Zero(model.nv()));
    forwardKinematics(model, data, q);
    jointJacobians(model, data);
  }
  Model model;           ///< the tree
  Data data;             ///< its workspace, after the three passes at q
  Eigen::VectorXd q;     ///< the configuration
  Eigen::VectorXd v_free;  ///< the velocity before any row acts
};

}  // namespace abdyn::test
