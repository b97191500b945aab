#include "model_lookup.hpp"

#include <filesystem>
#include <system_error>
#include <vector>

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
    for (const std::string& name : {argument, argument + ".urdf"}) {
      const fs::path candidate = directory / name;
      if (fs::is_regular_file(candidate, ec)) return candidate.string();
    }
  }
  return argument;
}
