#pragma once
// Contact points of shapes collided by GJK/EPA (convex_distance.hpp): meshes by their convex hulls,
// capsules, any shape against one of them, and shapes against static triangle meshes. Used by the contact rows
// (row_contacts.cpp).

#include "abdyn/constraints/convex_distance.hpp"
#include "abdyn/constraints/narrow_phase_workspace.hpp"

namespace abdyn::internal {

/// At most this many points per pair (a resting face needs no more than four).
constexpr int kManifoldPoints = 4;

/// One contact point: where the impulse acts (world), its gap along the pair's normal (negative: overlap).
struct ManifoldPoint {
  Vector3 point = Vector3::Zero();
  double gap = 0.0;
};

/// The hull vertices of a mesh placed by X_shape_world that lie within `band` of its furthest along `toward`
/// (unit, world), reduced to at most four that span the largest area (those within 0.5 mm of the deepest
/// first, whichever of them is deepest), in the order of the hull's vertex numbers (so that a point keeps its
/// place, and its rows their key, while the body rests). Returns how many.
int hullExtremePoints(const ConvexHull& hull, const Plx& X_shape_world, const Vector3& toward, double band,
                      Vector3* points);

/// The contact points of a and b given their signed distance d (d.normal from a to b): for two polytopes
/// (meshes and boxes) touching face to face or edge to face, the overlap of their faces nearest each other,
/// clipped in the contact plane (Sutherland-Hodgman) and reduced to four; otherwise the deepest point alone.
/// Each point lies on a's surface; gap is b's face minus a's along the normal there. Returns how many. Its
/// buffers are w's: nothing is allocated once they have grown to the faces met.
int contactManifold(const Geometry& a, const Plx& X_a_world, const Geometry& b, const Plx& X_b_world,
                    const ConvexDistance& d, ManifoldPoint* points, NarrowPhaseWorkspace& w);

/// A contact point of a shape against a static mesh, with its own normal (triangles of one mesh face many ways).
struct MeshContactPoint {
  Vector3 point = Vector3::Zero();   ///< on the shape's surface, world
  Vector3 normal = Vector3::UnitZ();  ///< unit, from the mesh toward the shape (the shape leaves along it)
  double gap = 0.0;                  ///< along normal; negative: overlap
};

/// The contact points (at most four) of convex `shape` against the static mesh `mesh` (MeshShape::bvh), from
/// the triangles near it (static_mesh.hpp) within `margin`: per triangle, the shape's signed distance to it
/// (convexTriangleDistance), with the triangle's own normal where the witness lies on an edge or corner that is no
/// crease of the surface (onCrease in the source); a polytope's face lying on the triangle is clipped against it
/// (as contactManifold does two faces), other contacts give the deepest point; apart from the triangle, no gap is
/// below the shape's distance to it. Points of two triangles that
/// coincide (a face clipped on both sides of a shared edge) are one; the rest are reduced to four as
/// contactManifold does, around the deepest point's normal. Returns how many. Its buffers are w's.
/// GJK/EPA run only where needed: a triangle a polytope's face planes or the triangle's own axes show beyond the
/// margin is skipped, and a polytope's face lying on a triangle is clipped against it directly where the shape's
/// extent along the triangle's normal and the clip's width prove the distance and normal GJK/EPA would find
/// (faceOnTriangle in the source).
int staticMeshManifold(const Geometry& shape, const Plx& X_shape_world, const Geometry& mesh, const Plx& X_mesh_world,
                       double margin, MeshContactPoint* points, NarrowPhaseWorkspace& w);

}  // namespace abdyn::internal
