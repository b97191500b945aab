#pragma once
// Finding the files a robot description names (meshes, mostly): `package://NAME/PATH`, `file://PATH`,
// absolute and relative paths.
//
// Where a name is looked up, in this order (the first existing regular file wins):
//   - package://NAME/PATH:
//       1. ResourceSearch::packages[NAME] / PATH (the user's map: UrdfOptions::package_dirs, the
//          program's --package NAME=DIR);
//       2. for each folder D of ROS_PACKAGE_PATH (ROS 1, ':'-separated): D / PATH when D itself is named
//          NAME, then D / NAME / PATH;
//       3. for each prefix P of AMENT_PREFIX_PATH (ROS 2, ':'-separated): P / share / NAME / PATH;
//       4. the describing file's folder (ResourceSearch::base_dir) and each of its parents A, up to the
//          file system's root: A / PATH when A is named NAME (the file sits inside a checkout of the
//          package), then A / NAME / PATH (a checkout beside it).
//     Steps 2 and 3 are skipped when ResourceSearch::use_environment is false.
//   - file://PATH: PATH; a relative PATH is relative to base_dir. (file:///abs/file is /abs/file.)
//   - anything else without a scheme: an absolute path as is, a relative one relative to base_dir.
//   - other schemes (http://, model://, ...) are not files: never found.
// A name that is not found is never dropped silently: lookUpResource says so in its result (with every
// place it tried), and resolveResource logs a warning naming the name and those places.

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace abdyn {

/// Where the names of resources are looked up (see above).
struct ResourceSearch {
  /// The folder of the file that names the resources (a URDF's folder): relative names are relative to
  /// it, and it and its parents are searched for packages. Empty: the current directory.
  std::string base_dir;
  /// Package folders by package name, searched before the environment.
  std::map<std::string, std::string> packages;
  /// Search the packages of ROS_PACKAGE_PATH and AMENT_PREFIX_PATH.
  bool use_environment = true;

  /// The search for the resources of the description file at `path` (base_dir = its folder).
  static ResourceSearch forFile(const std::string& path, std::map<std::string, std::string> packages = {});
};

/// The outcome of one look-up: the file found, or why not and every place tried.
struct ResourceLookup {
  std::string uri;                    ///< the name looked up, as given
  std::optional<std::string> path;    ///< the existing regular file it names; std::nullopt when not found
  std::vector<std::string> searched;  ///< every candidate path tried, in order (the last is `path` if found)
  std::string problem;                ///< why the name cannot name a file at all ("" if it can), e.g. an unknown scheme

  /// True when `path` holds the file found.
  bool found() const { return path.has_value(); }
  /// "resource 'URI' not found (searched: A, B, ...)" or "resource 'URI' cannot be found: PROBLEM".
  std::string notFoundMessage() const;
};

/// Looks `uri` up (see above). Never throws for a name that is not found: the result says so.
ResourceLookup lookUpResource(const std::string& uri, const ResourceSearch& search);

/// The file `uri` names, or std::nullopt after a warning through abdyn::logger() that starts with
/// `source` (the describing file, say) and names the URI and every place searched.
std::optional<std::string> resolveResource(const std::string& uri, const ResourceSearch& search,
                                           const std::string& source);

/// Parses "NAME=DIR" (the program's --package argument) into `packages`. Throws abdyn::InvalidArgument
/// naming the argument if NAME or DIR is empty or there is no '='.
void addPackageDir(std::map<std::string, std::string>& packages, const std::string& name_equals_dir);

}  // namespace abdyn
