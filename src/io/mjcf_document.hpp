#pragma once
// An MJCF document (MuJoCo's XML format, as MuJoCo 2.2.2 reads it) read into plain structs: the elements
// and numbers the loader (mjcf.cpp) turns into a Model, with <include> expanded, <default> classes
// applied and every orientation turned into a unit quaternion, and nothing else. Reading checks what the
// XML alone can tell (known element kinds and keywords, numbers that parse and are finite, one orientation
// per element, include cycles); the loader judges the values (inertias, the tree).
//
// Conventions, as MuJoCo defines them (XML reference, "Frame orientations" and "Default settings"):
//   - A body's pos and orientation place its frame in its parent body's frame; a geom's, site's, joint's
//     and <inertial>'s are in their body's frame. Orientations: quat (w, x, y, z, normalised), axisangle,
//     euler (sequence <compiler eulerseq>, lower case: moving axes, upper case: fixed axes), xyaxes,
//     zaxis (the shortest rotation taking z to it), all in degrees unless <compiler angle="radian">.
//   - An element's attributes override its class's: the class attribute, else the nearest enclosing
//     body's childclass, else "main" (the top-level <default>). A nested <default class> starts from its
//     parent class's values.
//   - <include file> is replaced by the children of the included file's top element.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "abdyn/spatial/types.hpp"

namespace abdyn::internal {

/// Where an element was written: "file:line: <kind name='...'>", for messages.
struct MjcfWhere {
  std::string text;
};

struct MjcfPose {
  Vector3 pos = Vector3::Zero();
  Vector4 quat = Vector4(1.0, 0.0, 0.0, 0.0);  // unit, (w, x, y, z)
};

enum class MjcfInertiaFromGeom { False, True, Auto };

struct MjcfCompiler {
  bool degree = true;           // angle="degree" (MJCF's default)
  std::string eulerseq = "xyz";
  MjcfInertiaFromGeom inertiafromgeom = MjcfInertiaFromGeom::Auto;
  int group_lo = 0, group_hi = 5;  // inertiagrouprange
  double boundmass = 0.0, boundinertia = 0.0;
  bool balanceinertia = false;
  double settotalmass = -1.0;   // <= 0: not set
  std::string meshdir, assetdir;
  bool autolimits = false;      // MuJoCo 2.2.2's default
  bool exactmeshinertia = false;
};

struct MjcfOption {
  Vector3 gravity = Vector3(0.0, 0.0, -9.81);
  double timestep = 0.002;
  std::string integrator = "Euler";
  bool gravity_disabled = false;  // <flag gravity="disable"/>
  bool passive_disabled = false;  // <flag passive="disable"/>: no springs and no damping
  bool contact_disabled = false;  // <flag contact="disable"/> or constraint="disable": no contacts at all
  bool filterparent_disabled = false;  // <flag filterparent="disable"/>: parent and child bodies collide
  bool predefined_only = false;   // <option collision="predefined">: only <contact><pair> geoms collide
};

enum class MjcfJointType { Hinge, Slide, Ball, Free };

struct MjcfJoint {
  MjcfWhere where;
  std::string name;  // "" if unnamed
  MjcfJointType type = MjcfJointType::Hinge;
  Vector3 pos = Vector3::Zero();   // anchor, body frame
  Vector3 axis = Vector3::UnitZ(); // body frame, normalised
  double ref = 0.0, springref = 0.0;  // radians for hinges
  double stiffness = 0.0, damping = 0.0, armature = 0.0, frictionloss = 0.0;
  std::optional<std::array<double, 2>> range;  // radians for hinges; set only when the joint is limited
  bool springdamper = false;  // springdamper given (not modelled)
};

enum class MjcfGeomType { Plane, Hfield, Sphere, Capsule, Ellipsoid, Cylinder, Box, Mesh };

struct MjcfGeom {
  MjcfWhere where;
  std::string name;
  MjcfGeomType type = MjcfGeomType::Sphere;
  Vector3 size = Vector3::Zero();  // MuJoCo's half sizes (fromto applied)
  MjcfPose pose;                   // in the body frame (fromto applied)
  std::optional<double> mass;
  double density = 1000.0;
  int group = 0;
  std::string mesh;                // mesh asset name (mesh geoms)
  std::uint32_t contype = 1, conaffinity = 1;  // collision filter bits; the geom collides when either is nonzero
  bool shellinertia = false;       // shellinertia="true": the mesh's inertia as a shell (mesh geoms)
};

struct MjcfSite {
  MjcfWhere where;
  std::string name;
  MjcfPose pose;
};

struct MjcfInertial {
  MjcfWhere where;
  double mass = 0.0;
  MjcfPose pose;                   // the inertial frame in the body frame
  Vector3 diag = Vector3::Zero();  // principal moments (diaginertia)
  std::optional<std::array<double, 6>> full;  // fullinertia (xx yy zz xy xz yz) in the body frame's axes
};

struct MjcfBody {
  MjcfWhere where;
  std::string name;  // "" if unnamed
  int parent = -1;   // index in MjcfDocument::bodies
  MjcfPose pose;     // in the parent body's frame
  bool mocap = false;
  std::optional<MjcfInertial> inertial;
  std::vector<MjcfJoint> joints;
  std::vector<MjcfGeom> geoms;
  std::vector<MjcfSite> sites;
};

enum class MjcfEqualityType { Connect, Weld, Joint };

struct MjcfEquality {
  MjcfWhere where;
  std::string name;
  MjcfEqualityType type = MjcfEqualityType::Connect;
  bool active = true;
  std::string body1, body2;       // connect, weld ("" body2: the world)
  Vector3 anchor = Vector3::Zero();  // connect: in body1; weld: in body2
  std::optional<MjcfPose> relpose;   // weld: body2 in body1, when given
  std::string joint1, joint2;     // joint equality ("" joint2: none)
  std::array<double, 5> polycoef{{0.0, 1.0, 0.0, 0.0, 0.0}};
};

struct MjcfActuator {
  MjcfWhere where;
  std::string name;
  std::string kind;    // the element: motor, general, position, ...
  std::string joint;   // "" if the transmission is not a joint
  std::string transmission;  // the transmission attribute when not a joint (tendon, site, body, ...)
  double gear = 1.0;
  std::optional<std::array<double, 2>> ctrlrange;  // set only when the control is limited
};

struct MjcfKey {
  MjcfWhere where;
  std::string name;
  std::vector<double> qpos;  // empty if not given
};

struct MjcfMesh {
  MjcfWhere where;
  std::string name;
  std::string file;  // resolved against meshdir / assetdir and the main file's folder; "" for vertex data
  Vector3 scale = Vector3::Ones();
  Vector3 refpos = Vector3::Zero();             // the file's point that becomes the origin
  Vector4 refquat = Vector4(1.0, 0.0, 0.0, 0.0);  // the file's frame's orientation (not normalised)
  double density = 1000.0;  // the geom density of the mesh's default class (MuJoCo weighs its inertia with it)
  std::vector<double> vertex;  // vertex data written in the XML (x y z ...), when there is no file
  std::vector<int> face;       // face data written in the XML (three indices each)
};

// <contact><exclude body1 body2>: the two bodies never collide with each other.
struct MjcfExclude {
  MjcfWhere where;
  std::string body1, body2;
};

struct MjcfDocument {
  std::string model_name = "MuJoCo Model";
  MjcfCompiler compiler;
  MjcfOption option;
  std::vector<MjcfBody> bodies;  // 0: the world; depth-first preorder, the order MuJoCo numbers them
  std::vector<MjcfEquality> equalities;
  std::vector<MjcfActuator> actuators;
  std::vector<MjcfKey> keys;
  std::vector<MjcfMesh> meshes;
  std::vector<MjcfExclude> excludes;
  std::vector<std::string> not_modelled;  // one remark per kind of element read past
};

/// Reads the MJCF document `xml` (named `source` in messages); relative <include> and asset files are
/// found in `base_dir`. The main text and every included file pass abdyn's XML limits
/// (io/xml_limits.hpp); includes nest at most 16 deep and bring at most 1000 files. Throws
/// abdyn::Error "<file>:<line>: <element>: ..." naming what is wrong.
MjcfDocument readMjcfDocument(const std::string& xml, const std::string& source, const std::string& base_dir);

}  // namespace abdyn::internal
