#pragma once
// A convex hull of abdyn's (Geometry::mesh->hull) as FCL's convex shape, for the tests that check the narrow
// phase against FCL (they link FCL; tests/CMakeLists.txt).

#include <memory>
#include <vector>

#include <fcl/geometry/shape/convex.h>

#include "abdyn/abdyn.hpp"

namespace abdyn::test {

/// The hull's vertices and faces (in the shape's own frame) as an fcl::Convex.
inline std::shared_ptr<fcl::Convex<double>> fclConvex(const abdyn::ConvexHull& hull) {
  auto vertices = std::make_shared<std::vector<Eigen::Vector3d>>(hull.vertices.begin(), hull.vertices.end());
  auto faces = std::make_shared<std::vector<int>>();
  for (const auto& f : hull.faces) {
    faces->push_back(static_cast<int>(f.size()));
    faces->insert(faces->end(), f.begin(), f.end());
  }
  return std::make_shared<fcl::Convex<double>>(vertices, static_cast<int>(hull.faces.size()), faces);
}

}  // namespace abdyn::test
