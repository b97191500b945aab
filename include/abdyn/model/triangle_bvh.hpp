#pragma once
/// @file
/// A bounding-volume hierarchy over a triangle mesh: a binary tree of boxes aligned with the mesh's axes, so
/// that the triangles near a shape are found without testing every one. Static (world) collision meshes carry
/// one (MeshShape::bvh), built once when the shape is added to a model (ModelBuilder::addGeometry).
///
/// Build: the triangles' centroids are split at their median along the longest axis of their box, recursively,
/// until a node holds at most kBvhLeafTriangles; a node's box is the union of its triangles' boxes. The depth is
/// at most ceil(log2(n / kBvhLeafTriangles)) + 1, so a query needs a stack of fixed size. Triangles of zero area
/// carry no surface and are left out.
///
/// Beside the tree, each triangle keeps its unit normal and, per edge, the vertex opposite that edge in the
/// neighbouring triangle (the triangle sharing the edge's two vertices; -1 on the mesh's boundary): the contacts
/// use it to tell a crease of the surface from an edge inside a flat region (contact_manifold.hpp).

#include <array>
#include <vector>

#include "abdyn/model/triangle_mesh.hpp"

namespace abdyn {

/// At most this many triangles in a leaf of a TriangleBvh.
constexpr int kBvhLeafTriangles = 4;

/// Axis-aligned box tree over a TriangleMesh's triangles (mesh coordinates), with per-triangle adjacency.
struct TriangleBvh {
  /// One node: a box and either two children or a range of triangles.
  struct Node {
    Vector3 lower = Vector3::Zero();  ///< the box's lower corner, mesh coordinates
    Vector3 upper = Vector3::Zero();  ///< the box's upper corner, mesh coordinates
    int first = 0;  ///< a leaf: the first of its entries in `triangles`; an inner node: its left child (right = first + 1)
    int count = 0;  ///< a leaf: how many triangles (> 0); an inner node: 0
  };
  std::vector<Node> nodes;     ///< nodes[0] is the root; empty when the mesh has no triangle of positive area
  std::vector<int> triangles;  ///< indices into TriangleMesh::triangles, each leaf's range contiguous
  std::vector<Vector3> normals;  ///< per mesh triangle: unit normal by its winding (zero for a triangle left out)
  /// Per mesh triangle, per edge e (from corner e to corner (e + 1) % 3): the vertex of the neighbouring triangle
  /// across that edge that is not on it; -1 on the boundary (and for triangles left out).
  std::vector<std::array<int, 3>> opposite;

  /// Whether the tree holds no triangle.
  bool empty() const { return nodes.empty(); }
  /// Puts in `out` (cleared first) the triangles of the leaves whose boxes overlap the box [lower, upper] (mesh
  /// coordinates), in the tree's order: every triangle whose own box overlaps it, and at most the rest of their
  /// leaves. Allocates nothing once `out` has room for them.
  void overlapping(const Vector3& lower, const Vector3& upper, std::vector<int>& out) const;
};

/// The hierarchy of `mesh`'s triangles (the file comment). Throws abdyn::InvalidArgument when a triangle names
/// a vertex out of range.
TriangleBvh buildTriangleBvh(const TriangleMesh& mesh);

}  // namespace abdyn
