// Loading MJCF files: abdyn's loadMjcf against MuJoCo 2.2.2's mj_loadXML (Debian's libmujoco-dev) on the
// same files, in one run (docs/loading-robots.md reports the ratio). Both read the file from disk and build
// their model (MuJoCo also compiles its rendering and collision data; abdyn loads collision meshes and
// their hulls). abdyn's warnings are switched off, so that the console's speed is not timed.
//   bench_mjcf_load --benchmark_min_time=0.5

#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <mujoco/mujoco.h>
#include <spdlog/spdlog.h>

#include "abdyn/abdyn.hpp"

namespace {

const std::vector<std::string> kFiles = {"models/humanoid.xml", "models/ant.xml", "tests/models/mjcf/mesh_inertia.xml"};

std::string path(int k) { return std::string(ABDYN_SOURCE_DIR) + "/" + kFiles[static_cast<std::size_t>(k)]; }

void abdynLoad(benchmark::State& state) {
  abdyn::logger()->set_level(spdlog::level::off);
  const std::string file = path(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    abdyn::Model model = abdyn::loadMjcf(file);
    benchmark::DoNotOptimize(model);
  }
  state.SetLabel(kFiles[static_cast<std::size_t>(state.range(0))]);
}

void mujocoLoad(benchmark::State& state) {
  const std::string file = path(static_cast<int>(state.range(0)));
  char error[1000] = "";
  for (auto _ : state) {
    mjModel* m = mj_loadXML(file.c_str(), nullptr, error, sizeof error);
    if (m == nullptr) {
      state.SkipWithError(error);
      break;
    }
    benchmark::DoNotOptimize(m);
    mj_deleteModel(m);
  }
  state.SetLabel(kFiles[static_cast<std::size_t>(state.range(0))]);
}

}  // namespace

BENCHMARK(abdynLoad)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);
BENCHMARK(mujocoLoad)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
