#pragma once
// The convex hull of a point set (a collision mesh's vertices), as the contacts of moving bodies use it:
// its vertices for support points, its faces (polygons, coplanar triangles merged) for contact manifolds.

#include <string>
#include <vector>

#include "abdyn/spatial/types.hpp"

namespace abdyn {

/// A convex polytope: vertices, and faces as polygons with their outward planes n . x = offset.
struct ConvexHull {
  std::vector<Vector3> vertices;        ///< the hull's vertices (a subset of the input points)
  std::vector<std::vector<int>> faces;  ///< indices into vertices, counterclockwise seen from outside
  std::vector<Vector3> normals;         ///< per face, outward unit normal
  std::vector<double> offsets;          ///< per face: n . x = offset on the face, n . x <= offset inside
  /// Vertices sharing a face with vertex i: neighbors[neighbor_offsets[i] .. neighbor_offsets[i + 1]), so that a
  /// support search can climb from vertex to vertex (every edge of the hull is among them, so a vertex no
  /// neighbor of which lies further along a direction is the furthest of all). Empty: search every vertex.
  std::vector<int> neighbor_offsets;
  std::vector<int> neighbors;  ///< see neighbor_offsets
  /// The number of vertices (MuJoCo's maxhullvert bounds it).
  int vertexCount() const { return static_cast<int>(vertices.size()); }
};

/// The convex hull of `points` (Qhull, reentrant libqhull_r), with coplanar facets merged into polygons.
/// max_vertices >= 4 stops the hull after that many vertices (MuJoCo's maxhullvert: the result is the
/// hull of the vertices chosen so far, which may leave some points outside); 0 means no bound. Throws
/// abdyn::InvalidArgument naming `what` when the points do not span a volume (fewer than four, all
/// coplanar, a non-finite coordinate) or max_vertices is 1 to 3 or negative.
ConvexHull convexHull(const std::vector<Vector3>& points, int max_vertices = 0, const std::string& what = "points");

}  // namespace abdyn
