#include "model_lookup.hpp"

#include <filesystem>
#include <system_error>
#include <vector>

#include "abdyn/io/mjcf.hpp"
#include "abdyn/io/urdf_loops.hpp"

namespace fs = std::filesystem;

std::string resolveModelPath(const std::string& argument) {
  std::error_code ec;
  if (argument.empty() || argument.find('/') != std::string::npos || fs::is_regular_file(argument, ec)) return argument;
  std::vector<fs::path> directories;
  // Installed: <prefix>/bin/abdyn next to <prefix>/share/abdyn/models (Linux names the program in /proc).
  const fs::path program = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) directories.push_back(program.parent_path().parent_path() / ABDYN_INSTALL_MODELS_SUBDIR);
  directories.emplace_back(ABDYN_SOURCE_MODELS_DIR);  // a program run from its build tree
  for (const fs::path& directory : directories) {
    for (const std::string& name : {argument, argument + ".urdf", argument + ".xml"}) {
      const fs::path candidate = directory / name;
      if (fs::is_regular_file(candidate, ec)) return candidate.string();
    }
  }
  return argument;
}

bool isMjcfFile(const std::string& path) { return fs::path(path).extension() == ".xml"; }

namespace {

abdyn::MjcfOptions mjcfOptions(const abdyn::UrdfOptions& options) {
  abdyn::MjcfOptions m;
  m.balance_inertia = options.balance_inertia;
  m.bound_mass = options.bound_mass;
  m.bound_inertia = options.bound_inertia;
  return m;
}

}  // namespace

abdyn::Model loadModelFile(const std::string& path, const abdyn::UrdfOptions& options) {
  return isMjcfFile(path) ? abdyn::loadMjcf(path, mjcfOptions(options)) : abdyn::loadUrdf(path, options);
}

abdyn::ConstraintSet loadModelConstraints(const std::string& path, const abdyn::Model& model) {
  return isMjcfFile(path) ? abdyn::loadMjcfModel(path).constraints : abdyn::loadUrdfLoops(path, model);
}
