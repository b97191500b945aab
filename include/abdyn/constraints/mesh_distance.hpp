#pragma once
/// @file
/// The signed distance between a convex shape and a static triangle mesh (a world collision mesh, whose
/// MeshShape::bvh holds its triangles' hierarchy): the narrow phase of contacts with exact static meshes.
///
/// The mesh is a surface, not a solid: each triangle is a flat convex shape of its own (both sides alike), and
/// the result is the least of the shape's signed distances to the triangles (convexTriangleDistance, GJK/EPA),
/// over the triangles whose boxes overlap the shape's box grown by max_distance (found by descending the
/// hierarchy). Apart, that is the distance between the shape and the surface, and its nearest points; overlapping,
/// the depth is the deepest over the triangles the shape overlaps, each triangle's depth being how far the shape
/// must move to leave that triangle (a shape sunk into a closed mesh further than its own size is not pushed out
/// of the volume: only triangles near it count).

#include <limits>

#include "abdyn/constraints/convex_distance.hpp"

namespace abdyn {

/// The signed distance of convex shape `shape` placed by X_shape_world and the static mesh `mesh` placed by
/// X_mesh_world, over the triangles near the shape (the file comment); distance is +infinity, with the other
/// fields unset, when no triangle's box lies within max_distance of the shape's box. The normal points from the
/// shape toward the mesh, like convexDistance's from a to b. Throws abdyn::InvalidArgument when `shape` is a
/// kind isConvexShape refuses or a plane, or when `mesh` is not a mesh with a triangles' hierarchy
/// (withTriangleBvh).
ConvexDistance staticMeshDistance(const Geometry& shape, const Plx& X_shape_world, const Geometry& mesh,
                                  const Plx& X_mesh_world,
                                  double max_distance = std::numeric_limits<double>::infinity());

}  // namespace abdyn
