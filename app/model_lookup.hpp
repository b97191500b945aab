#pragma once
// Finding a model given on the command line by name (`abdyn simulate double_pendulum`) and loading it:
// MJCF for a .xml file, URDF otherwise.

#include <string>
#include <utility>
#include <vector>

#include "abdyn/constraints/loop_closure.hpp"
#include "abdyn/io/urdf.hpp"

/// The path of the model the argument names: the argument itself when it is an existing file or contains
/// a '/', else NAME, NAME.urdf or NAME.xml in the installed models (<prefix>/share/abdyn/models, found from the
/// program's own location), then in the source tree the program was built from. When nothing matches, the
/// argument is returned unchanged and the loader reports it missing.
std::string resolveModelPath(const std::string& argument);

/// True for a file the program reads as MJCF: its extension is .xml.
bool isMjcfFile(const std::string& path);

/// Loads the model file at `path`: an MJCF file (.xml) with loadMjcf, taking balance_inertia, bound_mass
/// and bound_inertia from `options` (its gravity and floating base come from the file), else a URDF file
/// with loadUrdf.
abdyn::Model loadModelFile(const std::string& path, const abdyn::UrdfOptions& options);

/// The constraints the file declares: an MJCF file's equalities, a URDF file's loop joints.
abdyn::ConstraintSet loadModelConstraints(const std::string& path, const abdyn::Model& model);

/// Which body contacts a model file asks for (MJCF only).
struct ModelContacts {
  std::vector<std::pair<int, int>> excluded_pairs;  ///< MjcfModel::excluded_pairs
  std::vector<std::pair<int, int>> excluded_geometry_pairs;  ///< MjcfModel::excluded_geometry_pairs
  bool body_contacts = false;  ///< an MJCF file whose geoms collide with each other (MjcfModel::body_contacts)
  bool filter_parent = true;   ///< MjcfModel::filter_parent
};

/// The body contacts of an MJCF file, from the reading loadModelFile made; none for a URDF file.
ModelContacts loadModelContacts(const std::string& path);
