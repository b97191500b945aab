#include "abdyn/constraints/mesh_distance.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "abdyn/error.hpp"
#include "constraints/shape_box.hpp"
#include "constraints/static_mesh.hpp"

namespace abdyn {
namespace internal {

void trianglesNear(const Geometry& shape, const Plx& X_shape_world, const Geometry& mesh, const Plx& X_mesh_world,
                   double grow, std::vector<int>& out) {
  const Plx X_shape_mesh = X_shape_world * X_mesh_world.inverse();
  const Matrix3 R = X_shape_mesh.E().transpose();  // shape axes in mesh coordinates
  Vector3 centre = X_shape_mesh.r(), half_local = Vector3::Zero();
  if (shape.shape == ShapeType::Mesh) {
    Vector3 centre_local;
    hullBox(shape.mesh->hull, centre_local, half_local);
    centre += R * centre_local;
  }
  const Vector3 half = frameHalfExtents(shape, R, half_local) + Vector3::Constant(grow);
  const Vector3 lower = centre - half, upper = centre + half;
  mesh.mesh->bvh.overlapping(lower, upper, out);
  // The leaves hold triangles beside the box too: keep those whose own box overlaps it (the others are further
  // than `grow` from the shape along one axis).
  const TriangleMesh& m = mesh.mesh->triangles;
  std::size_t kept = 0;
  for (const int t : out) {
    const auto& tri = m.triangles[static_cast<std::size_t>(t)];
    const Vector3& a = m.vertices[static_cast<std::size_t>(tri[0])];
    const Vector3& b = m.vertices[static_cast<std::size_t>(tri[1])];
    const Vector3& c = m.vertices[static_cast<std::size_t>(tri[2])];
    if ((a.cwiseMin(b).cwiseMin(c).array() > upper.array()).any() || (lower.array() > a.cwiseMax(b).cwiseMax(c).array()).any()) {
      continue;
    }
    out[kept++] = t;
  }
  out.resize(kept);
}

std::array<Vector3, 3> triangleCorners(const MeshShape& mesh, const Plx& X_mesh_world, int t) {
  const auto& tri = mesh.triangles.triangles[static_cast<std::size_t>(t)];
  std::array<Vector3, 3> corners;
  for (std::size_t k = 0; k < 3; ++k) {
    corners[k] = X_mesh_world.applyInverseToPoint(mesh.triangles.vertices[static_cast<std::size_t>(tri[k])]);
  }
  return corners;
}

}  // namespace internal

ConvexDistance staticMeshDistance(const Geometry& shape, const Plx& X_shape_world, const Geometry& mesh,
                                  const Plx& X_mesh_world, double max_distance) {
  if (mesh.shape != ShapeType::Mesh || mesh.mesh == nullptr || mesh.mesh->bvh.empty()) {
    throw InvalidArgument("abdyn::staticMeshDistance: geometry '" + mesh.name +
                          "' is not a mesh with a triangles' hierarchy (withTriangleBvh)");
  }
  if (!isConvexShape(shape) || shape.shape == ShapeType::Plane) {
    throw InvalidArgument("abdyn::staticMeshDistance: geometry '" + shape.name +
                          "' is a plane or a mesh without a loaded convex hull");
  }
  if (std::isnan(max_distance)) throw InvalidArgument("abdyn::staticMeshDistance: max_distance is NaN");
  std::vector<int> near;
  internal::trianglesNear(shape, X_shape_world, mesh, X_mesh_world, std::isinf(max_distance) ? 1e300 : max_distance, near);
  ConvexDistance best;
  best.distance = std::numeric_limits<double>::infinity();
  for (const int t : near) {
    const std::array<Vector3, 3> corners = internal::triangleCorners(*mesh.mesh, X_mesh_world, t);
    // A triangle no nearer than the best so far changes nothing.
    if (std::isfinite(best.distance) && internal::convexTriangleApart(shape, X_shape_world, corners, best.distance)) continue;
    const ConvexDistance d = convexTriangleDistance(shape, X_shape_world, corners);
    if (d.distance < best.distance) best = d;
  }
  return best;
}

}  // namespace abdyn
