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

// The equalities of the MJCF file loadModelFile read last: an MJCF file's model and constraints come from
// one reading, so that its warnings are logged once and its meshes read once.
struct LastMjcf {
  std::string path;
  abdyn::ConstraintSet constraints;
  ModelContacts contacts;
};
LastMjcf& lastMjcf() {
  static LastMjcf last;
  return last;
}

}  // namespace

abdyn::Model loadModelFile(const std::string& path, const abdyn::UrdfOptions& options) {
  if (!isMjcfFile(path)) return abdyn::loadUrdf(path, options);
  abdyn::MjcfModel m = abdyn::loadMjcfModel(path, mjcfOptions(options));
  lastMjcf() = LastMjcf{path, std::move(m.constraints), ModelContacts{std::move(m.excluded_pairs), std::move(m.excluded_geometry_pairs), m.body_contacts, m.filter_parent}};
  return std::move(m.model);
}

abdyn::ConstraintSet loadModelConstraints(const std::string& path, const abdyn::Model& model) {
  if (!isMjcfFile(path)) return abdyn::loadUrdfLoops(path, model);
  if (lastMjcf().path == path) return lastMjcf().constraints;
  return abdyn::loadMjcfModel(path).constraints;
}

ModelContacts loadModelContacts(const std::string& path) {
  if (!isMjcfFile(path)) return {};
  if (lastMjcf().path == path) return lastMjcf().contacts;
  abdyn::MjcfModel m = abdyn::loadMjcfModel(path);
  return ModelContacts{std::move(m.excluded_pairs), std::move(m.excluded_geometry_pairs), m.body_contacts, m.filter_parent};
}
