#pragma once
// Signed distance between two convex shapes by GJK and EPA, the narrow phase of contacts with meshes.
//
// Shapes: spheres, capsules, boxes, cylinders, ellipsoids and meshes (by their convex hull,
// Geometry::mesh->hull), each against each; a plane (the half space z <= 0 of its frame) against any of
// them. A sphere and a capsule are a point and a segment (their core) inflated by the radius: GJK runs on
// the cores, which keeps their distance and depth exact while the cores are apart.
//
// GJK (Gilbert, Johnson, Keerthi 1988) finds the point v of the Minkowski difference D = A - B = {a - b}
// nearest the origin: at each iteration w = s_D(-v) = s_A(-v) - s_B(v) (s_X(d): X's point furthest along d)
// joins a simplex of at most four points of D, and v becomes the simplex's point nearest the origin
// (nearestOnSimplex, by signed volumes), the simplex keeping the points that carry it; it stops when
// |v|^2 - v . w <= 1e-12 |v|^2 (w is no nearer along v: |v| is the distance within that relative tolerance)
// and the distance is |v|. The witness points a, b carry the same barycentric coordinates over the supports
// that made the simplex. When D holds the origin (the shapes overlap), EPA (van den Bergen 2001) grows the
// simplex into a polytope inside D toward D's boundary: the face nearest the origin (normal n, distance t)
// gets the support w = s_D(n); the faces seen from w that join that face across edges are replaced by the fan
// from w over their rim, until n . w - t <= 1e-10 (about 1e-10 m; for polytopes EPA ends
// on D's own face, exactly). The depth is t, A overlapping B along n.
//
// The result's normal points from A to B (B moves along it to part from A): -v / |v| when apart, n when
// overlapping (a - b = t n: A's deepest point lies t past B's along n). distance is signed: negative is the penetration depth.

#include <array>

#include "abdyn/model/geometry.hpp"

namespace abdyn {

/// Two shapes' signed distance, their normal and their nearest (or deepest) points, in world coordinates.
struct ConvexDistance {
  double distance = 0.0;                 ///< > 0 apart, < 0 overlapping by -distance
  Vector3 normal = Vector3::UnitZ();     ///< unit, from A toward B
  Vector3 point_a = Vector3::Zero();     ///< on A's surface
  Vector3 point_b = Vector3::Zero();     ///< on B's surface; point_b - point_a = distance * normal
};

/// The point of a simplex nearest the origin, as GJK's distance sub-algorithm finds it (convexDistance).
struct SimplexNearest {
  Vector3 point = Vector3::Zero();      ///< the nearest point: the sum of weight[k] * corners[index[k]], k < count
  int count = 0;                        ///< how many corners carry it (1 to 4): those with a positive weight
  std::array<int, 4> index{};           ///< those corners' places in the simplex, increasing
  std::array<double, 4> weight{};       ///< their barycentric weights: each > 0, summing to 1
};

/// The point of the simplex spanned by corners[0 .. count) nearest the origin, with the corners that carry it
/// (the smallest face of the simplex holding it) and their weights: signed volumes (Montanari, Petrinic and
/// Barbieri 2017) with explicit segment, triangle and tetrahedron cases. A corner repeated, three corners in a
/// line or four in a plane (within a relative height of about 3e-8 of the simplex's size) make a flat simplex,
/// whose nearest point lies on its faces. Throws abdyn::InvalidArgument when count is not 1 to 4 or a corner
/// is not finite.
SimplexNearest nearestOnSimplex(const std::array<Vector3, 4>& corners, int count);

/// Whether convexDistance takes shapes of g's kind: every kind but a mesh whose hull is not loaded.
bool isConvexShape(const Geometry& g);

/// The signed distance of shapes a and b placed by X_a_world, X_b_world (world coordinates into the
/// shape's). Throws abdyn::InvalidArgument for a kind isConvexShape refuses or two planes.
ConvexDistance convexDistance(const Geometry& a, const Plx& X_a_world, const Geometry& b, const Plx& X_b_world);

/// The signed distance of shape a placed by X_a_world and the triangle with these corners (world coordinates),
/// a flat convex shape of its own (both sides alike): GJK/EPA as above, point_b on the triangle, the normal from
/// a toward the triangle. Throws abdyn::InvalidArgument for a kind isConvexShape refuses or a plane.
ConvexDistance convexTriangleDistance(const Geometry& a, const Plx& X_a_world, const std::array<Vector3, 3>& triangle);

}  // namespace abdyn
