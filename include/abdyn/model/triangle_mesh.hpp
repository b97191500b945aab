#pragma once
// A surface given as triangles over shared vertices, as mesh files describe it (io/mesh.hpp reads them).

#include <array>
#include <vector>

#include "abdyn/spatial/types.hpp"

namespace abdyn {

/// Triangles over shared vertices. Each triangle lists three indices into `vertices`, counterclockwise
/// seen from outside for a closed surface written with outward normals (files do not always keep this).
struct TriangleMesh {
  std::vector<Vector3> vertices;                ///< in the coordinates of the file (or of the shape, once scaled)
  std::vector<std::array<int, 3>> triangles;    ///< indices into vertices, each in [0, vertices.size())
};

}  // namespace abdyn
