#pragma once
// The box aligned with a frame's axes that holds a collision shape, written once for the broad phase
// (broad_phase.cpp) and the search of a static mesh's triangles near a shape (mesh_distance.cpp).

#include "abdyn/model/geometry.hpp"

namespace abdyn::internal {

/// Half extents along a frame's axes of shape g whose axes are the columns of R (frame coordinates), centred on
/// the shape's origin, except a mesh: the box (centre c, half extents half_local) of its hull in shape
/// coordinates, whose box in the frame has half extents |R| half_local about R c. Exact for spheres, boxes,
/// cylinders, capsules and ellipsoids; zero for a plane.
Vector3 frameHalfExtents(const Geometry& g, const Matrix3& R, const Vector3& half_local);

/// The box of a mesh's hull in shape coordinates: its centre and half extents.
void hullBox(const ConvexHull& hull, Vector3& centre, Vector3& half);

}  // namespace abdyn::internal
