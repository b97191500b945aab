#pragma once
/// @file
/// Visual and collision geometry read from a robot description. Not used by the dynamics algorithms;
/// kept so that contact and rendering code can find each shape on its body.
///
/// Every shape lives in its own frame (Geometry::X_geometry_body places it on its body); Geometry::size
/// reads per kind:
///   - Box: (x, y, z) edge lengths; centred on the origin.
///   - Cylinder: (radius, length, 0); axis z, centred on the origin.
///   - Sphere: (radius, 0, 0); centred on the origin.
///   - Capsule: (radius, length, 0): the segment between the two hemisphere centres has `length`, along z,
///     centred on the origin (URDF's and SDFormat's capsule; MuJoCo's size is (radius, length / 2)).
///   - Ellipsoid: (a, b, c) semi-axes along x, y, z (MuJoCo's size; SDFormat's radii).
///   - Plane: the half space z <= 0 of the shape's frame, normal +z; size = (x, y) half extents for display
///     only (0: unbounded); contacts take it unbounded.
///   - Mesh: size unused; the file mesh_filename scaled per axis by mesh_scale; Geometry::mesh holds the
///     loaded triangles and their convex hull (null while not loaded).

#include <cstdint>
#include <memory>
#include <string>

#include "abdyn/model/mesh_shape.hpp"
#include "abdyn/spatial/plx.hpp"

namespace abdyn {

/// Whether a shape is drawn (Visual) or collides (Collision).
enum class GeometryRole { Visual, Collision };
/// The kind of shape; its dimensions are in Geometry::size (the table above).
enum class ShapeType { Box, Cylinder, Sphere, Mesh, Capsule, Ellipsoid, Plane };

/// One visual or collision shape placed on a body.
struct Geometry {
  std::string name;        ///< the element's name attribute, or "<link>/<role><index>" when it has none
  std::string link;        ///< the link it was declared in
  GeometryRole role = GeometryRole::Collision;  ///< drawn or colliding
  ShapeType shape = ShapeType::Box;  ///< which kind (Geometry::size gives its dimensions)
  int body = 0;            ///< the body the link belongs to (after fixed-joint merging)
  Plx X_geometry_body;     ///< maps body coordinates into the shape's own frame
  Vector3 size = Vector3::Zero();  ///< per kind: the table above
  std::string mesh_filename;       ///< mesh only, as written in the file
  Vector3 mesh_scale = Vector3::Ones();  ///< mesh only: scale along the mesh's x, y, z
  /// Mesh only: the loaded triangles (mesh_scale applied, shape coordinates) and their convex hull, shared
  /// between copies of the model and never changed once built; null when the file was not loaded.
  std::shared_ptr<const MeshShape> mesh;
  /// Collision filter bits (MuJoCo's contype and conaffinity): body contacts collide two collision shapes
  /// only when (a.contype & b.conaffinity) | (b.contype & a.conaffinity) is nonzero. Both are 1 (every shape
  /// may collide with every other) unless the file says otherwise (MJCF).
  std::uint32_t contype = 1;
  std::uint32_t conaffinity = 1;  ///< the other half of the filter (see contype)
};

}  // namespace abdyn
