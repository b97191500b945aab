#pragma once
// MuJoCo's side of the mesh scene benchmarks (bench_mesh_pile, bench_mesh_scenes): a model loaded from MJCF
// text, with the energy computed, and freed at the end of scope.

#include <benchmark/benchmark.h>

#include <mujoco/mujoco.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

namespace abdyn_bench {

/// A model and its data loaded from MJCF text; `ok()` is false (and the benchmark skipped with MuJoCo's
/// message) when MuJoCo refuses it. The energy flag is on, so that mj_energyPos and mj_energyVel fill
/// mjData::energy (they leave it at zero otherwise).
class MujocoScene {
 public:
  MujocoScene(const std::string& xml, benchmark::State& state) {
    const std::string path = "/tmp/abdyn_bench_mesh_" + std::to_string(::getpid()) + ".xml";
    std::ofstream(path) << xml;
    char error[1000] = "";
    m = mj_loadXML(path.c_str(), nullptr, error, sizeof(error));
    std::remove(path.c_str());
    if (m == nullptr) {
      state.SkipWithError(error);
      return;
    }
    m->opt.enableflags |= mjENBL_ENERGY;
    d = mj_makeData(m);
  }
  ~MujocoScene() {
    if (d != nullptr) mj_deleteData(d);
    if (m != nullptr) mj_deleteModel(m);
  }
  MujocoScene(const MujocoScene&) = delete;
  MujocoScene& operator=(const MujocoScene&) = delete;
  bool ok() const { return d != nullptr; }
  /// Kinetic and potential energy of the current state (J).
  double energy() {
    mj_energyPos(m, d);
    mj_energyVel(m, d);
    return d->energy[0] + d->energy[1];
  }
  /// The deepest penetration among the current contacts (m; 0 when none overlaps).
  double deepest() const {
    double depth = 0.0;
    for (int c = 0; c < d->ncon; ++c) depth = depth > -d->contact[c].dist ? depth : -d->contact[c].dist;
    return depth;
  }

  mjModel* m = nullptr;
  mjData* d = nullptr;
};

}  // namespace abdyn_bench
