// mjcf_compare: abdyn's MJCF loader against MuJoCo 2.2.2 on every .xml file under the folders (or the
// files) given, one line per file, then a summary:
//   agrees        both load; M, qfrc_bias within 1e-12 and qacc_smooth within 1e-9 (relative) at 20 states
//   differs       both load, a tolerance is broken (the three figures are printed)
//   refused       MuJoCo loads the file, abdyn refuses it (abdyn's reason)
//   not-mujoco    MuJoCo refuses it too (an include fragment, a file of a later MuJoCo): not counted
// Usage: mjcf_compare [--exact-axes] PATH... (docs/loading-robots.md shows the run over the public
// collections). --exact-axes first replaces MuJoCo's approximate principal axes of body inertias by the
// exact ones of the same tensors (useExactPrincipalAxes), to tell that effect apart from the rest.

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "mujoco_mjcf_compare.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: mjcf_compare [--exact-axes] PATH...\n";
    return 2;
  }
  abdyn::logger()->set_level(spdlog::level::off);
  std::vector<std::string> files;
  bool exact_axes = false;
  for (int a = 1; a < argc; ++a) {
    if (std::string(argv[a]) == "--exact-axes") {
      exact_axes = true;
      continue;
    }
    const std::filesystem::path p(argv[a]);
    if (std::filesystem::is_directory(p)) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(p)) {
        if (e.is_regular_file() && e.path().extension() == ".xml") files.push_back(e.path().string());
      }
    } else {
      files.push_back(p.string());
    }
  }
  std::sort(files.begin(), files.end());
  int mujoco = 0, loaded = 0, agreeing = 0;
  for (const std::string& f : files) {
    std::mt19937 rng(30);
    const abdyn::test::MujocoComparison c = abdyn::test::compareMjcfWithMujoco(f, 20, rng, exact_axes);
    std::string line = f + "  ";
    if (!c.loaded_mujoco) {
      line += "not-mujoco  " + c.error;
    } else {
      ++mujoco;
      if (!c.loaded_abdyn || !c.error.empty()) {
        line += "refused  " + c.error;
      } else {
        ++loaded;
        const bool ok = c.mass_matrix <= 1e-12 && c.bias <= 1e-12 && c.acceleration <= 1e-9;
        agreeing += ok ? 1 : 0;
        char figures[160];
        std::snprintf(figures, sizeof(figures), "M %.1e  bias %.1e  qacc %.1e", c.mass_matrix, c.bias, c.acceleration);
        line += std::string(ok ? "agrees  " : "differs  ") + figures;
      }
    }
    std::replace(line.begin(), line.end(), '\n', ' ');
    std::cout << line << "\n" << std::flush;
  }
  std::cout << "files " << files.size() << ", MuJoCo loads " << mujoco << ", abdyn loads " << loaded << ", agreeing "
            << agreeing << "\n";
  return 0;
}
