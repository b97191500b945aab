#pragma once
// Finding a static mesh's triangles near a shape, written once for its distance (mesh_distance.cpp) and its
// contact points (contact_manifold.cpp), with the early out that spares most triangles GJK (convex_distance.cpp).

#include <array>
#include <vector>

#include "abdyn/model/geometry.hpp"

namespace abdyn::internal {

/// The triangles of `mesh` (a mesh with MeshShape::bvh) whose boxes overlap the box of `shape` grown by `grow`
/// on every side, into `out` (cleared first), found by descending the hierarchy in the mesh's coordinates, in the
/// tree's order. Allocates nothing once `out` has room for them.
void trianglesNear(const Geometry& shape, const Plx& X_shape_world, const Geometry& mesh, const Plx& X_mesh_world,
                   double grow, std::vector<int>& out);

/// Whether convex `shape` is at least `margin` away from the triangle (world corners), by a separating axis
/// (the triangle's normal or an edge's outward normal in its plane, convex_distance.cpp): a cheap and exact
/// early out before convexTriangleDistance. False says nothing (the shape may still be that far).
bool convexTriangleApart(const Geometry& shape, const Plx& X_shape_world, const std::array<Vector3, 3>& triangle,
                         double margin);

/// Triangle t's corners in world coordinates.
std::array<Vector3, 3> triangleCorners(const MeshShape& mesh, const Plx& X_mesh_world, int t);

}  // namespace abdyn::internal
