#pragma once
// The loaded form of a mesh shape (Geometry::mesh): its triangles and the convex hull that contacts use.

#include <memory>
#include <string>

#include "abdyn/model/convex_hull.hpp"
#include "abdyn/model/triangle_bvh.hpp"
#include "abdyn/model/triangle_mesh.hpp"

namespace abdyn {

/// A mesh file loaded for a Geometry, in the shape's coordinates (mesh_scale applied).
struct MeshShape {
  std::string path;        ///< the file it was read from (resolved)
  TriangleMesh triangles;  ///< the surface as the file gives it
  ConvexHull hull;         ///< the convex hull of the vertices (contacts of moving bodies use it)
  /// The triangles' hierarchy, for contacts with the exact surface: built for the world's collision meshes
  /// (ModelBuilder::addGeometry, withTriangleBvh), empty for the others.
  TriangleBvh bvh;
};

/// The shape of `mesh` scaled per axis by `scale` (URDF's mesh_scale; a negative factor mirrors the mesh
/// and reverses its triangles' winding back to outward), with its convex hull bounded to max_hull_vertices
/// (0: no bound; convexHull). Throws abdyn::InvalidArgument naming `path` when the scale is not finite or
/// zero, or the vertices span no volume.
std::shared_ptr<const MeshShape> makeMeshShape(TriangleMesh mesh, const Vector3& scale, int max_hull_vertices,
                                               const std::string& path);

/// `shape` with its triangles' hierarchy (MeshShape::bvh): `shape` itself when it has one or has no triangle, a
/// copy with it otherwise. Null stays null.
std::shared_ptr<const MeshShape> withTriangleBvh(std::shared_ptr<const MeshShape> shape);

}  // namespace abdyn
