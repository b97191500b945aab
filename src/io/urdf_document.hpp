#pragma once
// A URDF document read into plain structs: the elements and numbers the loader (urdf.cpp) turns into a
// Model, and nothing else. Reading checks what the XML alone can tell (required elements and
// attributes, known joint types and shapes, numbers that parse and are finite); the loader judges the
// values (inertias, limits, the tree).
//
// Conventions, as URDF defines them (http://wiki.ros.org/urdf/XML):
//   - <origin xyz rpy> is the pose of a child frame in its parent frame: rotate by R(rpy), then
//     translate by xyz, both in parent coordinates; missing attributes are zero.
//   - rpy = (roll, pitch, yaw) about the parent's fixed axes: R = Rz(yaw) Ry(pitch) Rx(roll)
//     (abdyn/spatial/euler.hpp, rpyToMatrix).
//   - <axis xyz> is in the joint frame; it defaults to (1, 0, 0) and is kept as written (the loader
//     normalises it).
//   - A missing <inertial> is a massless link; the inertia tensor is about the centre of mass, in the
//     axes of the <inertial> <origin> frame. An <inertial> without <inertia> is a point mass.
//
// Elements that cannot change the model never refuse a file: a <visual> or <collision> that cannot be
// read keeps its reason in UrdfShape::problem (the loader drops it with a warning), and a <material>
// without a name is noted in UrdfDocument::doubts. <material> colours and textures, <sensor>, <gazebo>,
// <transmission>, <safety_controller> and <calibration> are not read at all.

#include <optional>
#include <string>
#include <vector>

#include "abdyn/model/geometry.hpp"
#include "abdyn/spatial/quaternion.hpp"
#include "abdyn/spatial/types.hpp"
#include "io/xml_limits.hpp"

namespace abdyn::internal {

struct UrdfPose {
  Vector3 xyz = Vector3::Zero();  // origin of the child frame, in parent coordinates
  Vector3 rpy = Vector3::Zero();  // fixed-axis roll, pitch, yaw of the child frame in the parent frame
  // The orientation as a unit quaternion (frame to parent coordinates), used instead of rpy when set:
  // documents built from urdfdom's model, which keeps quaternions, when their rpy cannot be recovered.
  std::optional<Quaternion> rotation;
};

struct UrdfInertial {
  UrdfPose origin;  // the inertial frame in the link frame; its origin is the centre of mass
  double mass = 0.0;
  double ixx = 0.0, ixy = 0.0, ixz = 0.0, iyy = 0.0, iyz = 0.0, izz = 0.0;  // about the centre of mass, inertial-frame axes
};

struct UrdfShape {
  GeometryRole role = GeometryRole::Visual;
  std::string name;   // the name attribute, or "<link>/<visual|collision><index among the link's elements of that kind>"
  UrdfPose origin;    // the shape's frame in the link frame
  ShapeType shape = ShapeType::Box;
  Vector3 size = Vector3::Zero();  // as Geometry::size
  std::string mesh_filename;
  Vector3 mesh_scale = Vector3::Ones();
  std::string problem;  // why the element cannot be read ("" if it can): the shape is dropped
};

struct UrdfLink {
  std::string name;
  std::optional<UrdfInertial> inertial;
  std::vector<UrdfShape> shapes;  // visuals and collisions, in file order
};

enum class UrdfJointType { Revolute, Continuous, Prismatic, Fixed, Floating, Planar, Spherical };

struct UrdfLimit {
  double lower = 0.0, upper = 0.0;  // URDF's defaults when the attributes are missing
  std::optional<double> effort, velocity;  // absent (no limit) when the attribute is missing
};

struct UrdfDynamics {
  double damping = 0.0, friction = 0.0;
};

struct UrdfMimic {
  std::string joint;  // the leader
  double multiplier = 1.0, offset = 0.0;
};

struct UrdfJoint {
  std::string name;
  UrdfJointType type = UrdfJointType::Fixed;
  std::string parent, child;  // link names
  UrdfPose origin;            // the joint frame (= the child link's frame at q = 0) in the parent link's frame
  Vector3 axis = Vector3::UnitX();
  std::optional<UrdfLimit> limit;
  std::optional<UrdfDynamics> dynamics;
  std::optional<UrdfMimic> mimic;
};

struct UrdfDocument {
  std::string name;  // <robot name>
  std::vector<UrdfLink> links;    // in file order
  std::vector<UrdfJoint> joints;  // in file order
  std::vector<std::string> doubts;    // elements without effect that URDF calls invalid: warnings, errors under strict
  std::vector<std::string> warnings;  // other remarks about elements without effect
};

/// How to turn a xacro source into a URDF, for messages about files that are one.
inline constexpr const char* kXacroAdvice = "xacro FILE.urdf.xacro > FILE.urdf (ROS's xacro package)";

/// Whether the text holds xacro markup outside comments (<xacro:...> elements, ${...} or $(...)
/// substitutions): a xacro source rather than a URDF.
bool looksLikeXacro(const std::string& xml);

/// Reads the first <robot> element of `xml`, parsed with tinyxml2 one child at a time where the
/// pre-scan's `outline` (xml_limits.hpp) allows, else as a whole. Throws abdyn::Error
/// "<source>: ..." naming the element, attribute and value at fault.
UrdfDocument readUrdfDocument(const std::string& xml, const std::string& source, const XmlOutline& outline);

}  // namespace abdyn::internal
