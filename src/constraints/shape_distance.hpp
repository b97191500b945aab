#pragma once
// A collision shape's signed distance and outward normal at a point in the shape's own coordinates, written
// once for the body-contact rows (row_contacts.cpp) and their derivatives (row_derivatives.cpp), so that both
// take the same branch (face, edge, rim, inside) at the same point.

#include "abdyn/model/geometry.hpp"

namespace abdyn::internal {

/// Shape g's signed distance at the point l (g's coordinates; negative inside) and its outward unit normal n_l
/// there, for spheres, boxes and cylinders (false for meshes): the distance to the nearest face, edge or rim,
/// from the per-axis excesses q = |l| - half extents. With N, also N = d n_l / d l (docs/derivatives.md,
/// section 8), and false where n_l has no derivative: a sphere's centre, a cylinder's axis where its radial
/// direction is used, a point inside a cylinder as near its side as its cap. Without N those points get a
/// fixed normal (z at a sphere's centre, x as a cylinder's radial direction on its axis).
bool localSignedDistance(const Geometry& g, const Vector3& l, double& distance, Vector3& n_l, Matrix3* N = nullptr);

}  // namespace abdyn::internal
