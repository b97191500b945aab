#pragma once
// The inertia MuJoCo 2.2.2's compiler gives a mesh geom (its mjCMesh processing), computed with the same
// single-precision vertex arithmetic so that the result agrees with MuJoCo's to round-off in double.

#include <string>

#include "abdyn/model/triangle_mesh.hpp"
#include "abdyn/spatial/types.hpp"

namespace abdyn::internal {

/// A mesh asset's inertia as MuJoCo 2.2.2 compiles it, in the mesh frame (the file's coordinates moved by
/// -refpos, turned by refquat's inverse and scaled).
struct MjcfMeshInertia {
  double volume = 0.0;  ///< the volume that a geom's density multiplies (MuJoCo's mjCGeom::GetVolume)
  Vector3 com = Vector3::Zero();  ///< the centre of mass in the mesh frame: the geom's frame moves there
  /// The inertia tensor about com, in the mesh frame's axes, for a unit mass (a geom of mass m has m times it).
  Matrix3 inertia_per_mass = Matrix3::Zero();
};

/// How the mesh's inertia is computed: MuJoCo 2.2.2's default (exact = false: every pyramid's volume
/// counted positive, the volume that of the box of equal inertia), or <compiler exactmeshinertia="true">.
struct MjcfMeshProcessing {
  Vector3 scale = Vector3::Ones();
  Vector3 refpos = Vector3::Zero();
  Vector4 refquat = Vector4(1.0, 0.0, 0.0, 0.0);  ///< (w, x, y, z), normalised here
  double density = 1000.0;  ///< the mesh's default class's geom density (weighs the moments' round-off only)
  bool exact = false;
};

/// The volume inertia of the closed triangle surface `mesh` (vertices in file coordinates). Throws
/// abdyn::Error starting with `where` when MuJoCo 2.2.2 would refuse the mesh for inertia: a surface area or
/// volume below 1e-15, a non-positive principal moment, moments breaking the triangle inequality.
MjcfMeshInertia mjcfMeshInertia(const TriangleMesh& mesh, const MjcfMeshProcessing& how, const std::string& where);

}  // namespace abdyn::internal
