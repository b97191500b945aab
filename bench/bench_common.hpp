#pragma once
// What the benchmark programs share: seeded random vectors and states, the --source argument, and the
// timed loop that cycles through states drawn before timing.

#include <benchmark/benchmark.h>
#include <Eigen/Core>
#include <spdlog/spdlog.h>

#include <random>
#include <string>
#include <vector>

#include "abdyn/logging.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/model.hpp"

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

/// takeSourceArgument, with abdyn's log quieted to errors: a loader's warnings would cut into the table.
inline std::vector<char*> benchArguments(int argc, char** argv, std::string& dir) {
  abdyn::logger()->set_level(spdlog::level::err);
  return takeSourceArgument(argc, argv, dir);
}

/// Appends `count` states of model drawn from std::mt19937(seed), each in the order q (a valid
/// configuration), v, tau, qdd (the last three uniform in [-1, 1]).
inline void drawStates(const abdyn::Model& model, int count, unsigned seed, std::vector<Eigen::VectorXd>& q,
                       std::vector<Eigen::VectorXd>& v, std::vector<Eigen::VectorXd>& tau,
                       std::vector<Eigen::VectorXd>& qdd) {
  std::mt19937 rng(seed);
  for (int s = 0; s < count; ++s) {
    q.push_back(abdyn::randomConfiguration(model, rng));
    v.push_back(randomVector(rng, model.nv()));
    tau.push_back(randomVector(rng, model.nv()));
    qdd.push_back(randomVector(rng, model.nv()));
  }
}

/// The timed loop: call(s) once per iteration, s cycling through the `states` inputs drawn before timing
/// so that no call sees the same input twice in a row.
template <class Call>
void cycleStates(benchmark::State& state, int states, const Call& call) {
  int s = 0;
  for (auto _ : state) {
    call(s);
    benchmark::ClobberMemory();
    s = (s + 1) % states;
  }
}

}  // namespace abdyn_bench
