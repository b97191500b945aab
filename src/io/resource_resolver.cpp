#include "abdyn/io/resource_resolver.hpp"

#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <utility>

#include "abdyn/error.hpp"
#include "abdyn/logging.hpp"

namespace abdyn {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kPackage = "package://";
constexpr std::string_view kFile = "file://";

bool startsWith(const std::string& s, std::string_view prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

// The non-empty entries of a ':'-separated environment variable (none if it is unset).
std::vector<fs::path> pathList(const char* variable) {
  std::vector<fs::path> dirs;
  const char* value = std::getenv(variable);
  if (value == nullptr) return dirs;
  const std::string_view list(value);
  std::size_t begin = 0;
  while (begin <= list.size()) {
    const std::size_t end = std::min(list.find(':', begin), list.size());
    if (end > begin) dirs.emplace_back(list.substr(begin, end - begin));
    begin = end + 1;
  }
  return dirs;
}

// Records `candidate` and stops the search (returns true) if it is an existing regular file.
bool tryPath(ResourceLookup& lookup, const fs::path& candidate) {
  lookup.searched.push_back(candidate.string());
  std::error_code ec;
  if (!fs::is_regular_file(candidate, ec)) return false;
  lookup.path = candidate.string();
  return true;
}

fs::path relativeTo(const fs::path& base, const fs::path& p) { return p.is_absolute() || base.empty() ? p : base / p; }

void lookUpPackage(ResourceLookup& lookup, const std::string& rest, const ResourceSearch& search) {
  const std::size_t slash = rest.find('/');
  if (slash == 0 || slash == std::string::npos || slash + 1 == rest.size()) {
    lookup.problem = "a package URI is package://NAME/PATH, with a package name and a path inside it";
    return;
  }
  const std::string name = rest.substr(0, slash);
  const fs::path inside = fs::path(rest.substr(slash + 1)).relative_path();
  if (const auto it = search.packages.find(name); it != search.packages.end()) {
    if (tryPath(lookup, fs::path(it->second) / inside)) return;
  }
  if (search.use_environment) {
    for (const fs::path& dir : pathList("ROS_PACKAGE_PATH")) {
      if (dir.filename() == name && tryPath(lookup, dir / inside)) return;
      if (tryPath(lookup, dir / name / inside)) return;
    }
    for (const fs::path& prefix : pathList("AMENT_PREFIX_PATH")) {
      if (tryPath(lookup, prefix / "share" / name / inside)) return;
    }
  }
  std::error_code ec;
  fs::path dir = fs::absolute(search.base_dir.empty() ? fs::path(".") : fs::path(search.base_dir), ec).lexically_normal();
  if (ec) return;
  if (!dir.has_filename()) dir = dir.parent_path();  // "a/b/" normalises to "a/b/", whose filename is empty
  for (;;) {
    if (dir.filename() == name && tryPath(lookup, dir / inside)) return;
    if (tryPath(lookup, dir / name / inside)) return;
    if (dir == dir.parent_path()) return;
    dir = dir.parent_path();
  }
}

}  // namespace

ResourceSearch ResourceSearch::forFile(const std::string& path, std::map<std::string, std::string> packages) {
  ResourceSearch search;
  search.base_dir = fs::path(path).parent_path().string();
  search.packages = std::move(packages);
  return search;
}

std::string ResourceLookup::notFoundMessage() const {
  if (!problem.empty()) return "resource '" + uri + "' cannot be found: " + problem;
  std::string message = "resource '" + uri + "' not found (searched: ";
  for (std::size_t k = 0; k < searched.size(); ++k) message += (k ? ", " : "") + searched[k];
  return message + ")";
}

ResourceLookup lookUpResource(const std::string& uri, const ResourceSearch& search) {
  ResourceLookup lookup;
  lookup.uri = uri;
  const fs::path base(search.base_dir);
  if (startsWith(uri, kPackage)) {
    lookUpPackage(lookup, uri.substr(kPackage.size()), search);
  } else if (startsWith(uri, kFile)) {
    const std::string path = uri.substr(kFile.size());
    if (path.empty()) {
      lookup.problem = "the file URI names no path";
    } else {
      tryPath(lookup, relativeTo(base, path));
    }
  } else if (const std::size_t scheme = uri.find("://"); scheme != std::string::npos && scheme > 0 &&
                                                         uri.find('/') > scheme) {
    lookup.problem = "the scheme '" + uri.substr(0, scheme) + "://' names no file (abdyn reads package://, file:// and paths)";
  } else if (uri.empty()) {
    lookup.problem = "the name is empty";
  } else {
    tryPath(lookup, relativeTo(base, uri));
  }
  return lookup;
}

std::optional<std::string> resolveResource(const std::string& uri, const ResourceSearch& search, const std::string& source) {
  ResourceLookup lookup = lookUpResource(uri, search);
  if (!lookup.found()) logger()->warn("{}: {}", source, lookup.notFoundMessage());
  return std::move(lookup.path);
}

void addPackageDir(std::map<std::string, std::string>& packages, const std::string& name_equals_dir) {
  const std::size_t eq = name_equals_dir.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == name_equals_dir.size()) {
    throw InvalidArgument("package directory '" + name_equals_dir + "': expected NAME=DIR, with a package name and a folder");
  }
  packages[name_equals_dir.substr(0, eq)] = name_equals_dir.substr(eq + 1);
}

}  // namespace abdyn
