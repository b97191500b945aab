#pragma once
// What the benchmark programs share: seeded random vectors and the --source argument.

#include <Eigen/Core>

#include <random>
#include <string>
#include <vector>

namespace abdyn_bench {

/// n numbers uniform in [-1, 1] from rng.
inline Eigen::VectorXd randomVector(std::mt19937& rng, int n) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::VectorXd x(n);
  for (int k = 0; k < n; ++k) x[k] = u(rng);
  return x;
}

/// The arguments without "--source DIR", which sets dir (the source tree whose models are loaded).
inline std::vector<char*> takeSourceArgument(int argc, char** argv, std::string& dir) {
  std::vector<char*> rest;
  for (int k = 0; k < argc; ++k) {
    if (std::string(argv[k]) == "--source" && k + 1 < argc) {
      dir = argv[++k];
    } else {
      rest.push_back(argv[k]);
    }
  }
  return rest;
}

}  // namespace abdyn_bench
