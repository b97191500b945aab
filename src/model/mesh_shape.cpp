#include "abdyn/model/mesh_shape.hpp"

#include <utility>

#include "abdyn/error.hpp"

namespace abdyn {

std::shared_ptr<const MeshShape> makeMeshShape(TriangleMesh mesh, const Vector3& scale, int max_hull_vertices,
                                               const std::string& path) {
  if (!scale.allFinite() || (scale.array() == 0.0).any()) {
    throw InvalidArgument("abdyn::makeMeshShape(" + path + "): the scale (" + std::to_string(scale.x()) + ", " +
                          std::to_string(scale.y()) + ", " + std::to_string(scale.z()) + ") is not finite or has a zero");
  }
  for (Vector3& v : mesh.vertices) v = v.cwiseProduct(scale);
  if (scale.prod() < 0.0) {  // a mirror turns the winding inward
    for (auto& t : mesh.triangles) std::swap(t[1], t[2]);
  }
  auto shape = std::make_shared<MeshShape>();
  shape->path = path;
  shape->hull = convexHull(mesh.vertices, max_hull_vertices, path);
  shape->triangles = std::move(mesh);
  return shape;
}

std::shared_ptr<const MeshShape> withTriangleBvh(std::shared_ptr<const MeshShape> shape) {
  if (shape == nullptr || !shape->bvh.empty() || shape->triangles.triangles.empty()) return shape;
  auto copy = std::make_shared<MeshShape>(*shape);
  copy->bvh = buildTriangleBvh(copy->triangles);
  return copy;
}

}  // namespace abdyn
