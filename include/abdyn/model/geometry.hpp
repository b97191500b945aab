#pragma once
/// @file
/// Visual and collision geometry read from a robot description. Not used by the dynamics algorithms;
/// kept so that contact and rendering code can find each shape on its body.

#include <string>

#include "abdyn/spatial/plx.hpp"

namespace abdyn {

/// Whether a shape is drawn (Visual) or collides (Collision).
enum class GeometryRole { Visual, Collision };
/// The kind of shape; its dimensions are in Geometry::size.
enum class ShapeType { Box, Cylinder, Sphere, Mesh };

/// One visual or collision shape placed on a body.
struct Geometry {
  std::string name;        ///< the element's name attribute, or "<link>/<role><index>" when it has none
  std::string link;        ///< the link it was declared in
  GeometryRole role = GeometryRole::Collision;  ///<drawn or colliding
  ShapeType shape = ShapeType::Box;  ///<which kind (Geometry::size gives its dimensions)
  int body = 0;            ///< the body the link belongs to (after fixed-joint merging)
  Plx X_geometry_body;     ///< maps body coordinates into the shape's own frame
  Vector3 size = Vector3::Zero();  ///< box: edge lengths; cylinder: (radius, length, 0); sphere: (radius, 0, 0)
  std::string mesh_filename;       ///< mesh only, as written in the file (not loaded)
  Vector3 mesh_scale = Vector3::Ones();  ///<mesh only: scale along the mesh's x, y, z
};

}  // namespace abdyn
