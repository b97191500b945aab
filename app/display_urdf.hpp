#pragma once
// The viewer page draws a robot from URDF text (urdf-loader) and moves its joints from abdyn's own joint
// table (viewer/src/main.js). For a model that does not come from a URDF (an MJCF file), this writes the
// URDF text the page draws: one link per body, one joint per body placed at X_tree (its type is "fixed"
// except for floating joints: the page sets each joint's pose itself), and every shape of the model,
// visual and collision alike (MuJoCo draws both), as URDF visuals. Shapes URDF has no element for are
// drawn from ones it has: a capsule as a cylinder and two spheres, an ellipsoid as a scaled unit sphere
// mesh, a mesh given as data in the file as a mesh of its triangles; planes (MJCF's floors, on the world)
// are left to the page's own ground, which would otherwise be hidden and would set the camera's distance. The meshes this makes are returned by name, as binary STL bytes.

#include <map>
#include <string>

#include "abdyn/model/model.hpp"

namespace abdyn_app {

/// The URDF text that draws `model` on the viewer page; `generated` receives the STL bytes of the meshes
/// it names that are no files (by the names the text uses).
std::string displayUrdf(const abdyn::Model& model, std::map<std::string, std::string>& generated);

}  // namespace abdyn_app
