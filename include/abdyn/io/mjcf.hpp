#pragma once
// Loading a Model from an MJCF file (MuJoCo's XML format), read by abdyn itself on tinyxml2 with the
// URDF reader's limits. The model is the one MuJoCo 2.2.2 compiles from the
// file, for the dynamics: for a model loaded from MJCF, forwardDynamics(model, data, q, v, tau) with
// default DynamicsOptions is MuJoCo's qacc_smooth with qfrc_applied = tau (contacts, constraints,
// limits, friction loss and actuators aside), and M(q) is mj_fullM's (tests/test_reference_mujoco_mjcf.cpp
// checks both on one small file per feature).
//
// How the file maps onto the model:
//   - Joints keep their names and MuJoCo's order, so q is MuJoCo's qpos exactly: model.joint(name).idx_q
//     and idx_v are MuJoCo's jnt_qposadr and jnt_dofadr. An unnamed joint is named "joint<k>", k its
//     index among the file's joints; an unnamed body "body<k>", k its MuJoCo body index.
//   - A hinge or slide joint with ref has q = ref at the pose the file draws (MuJoCo's qpos0); the
//     joint frame is turned (moved) by -ref in X_tree. A ball joint's q is its quaternion (w, x, y, z),
//     v the angular velocity in the body frame, as in MuJoCo. A free joint (<freejoint> or
//     type="free", top-level bodies only) is abdyn's Floating joint: q = (position, quaternion) of the
//     body frame in the world, MuJoCo's qpos; v = [w; v_o] is the body's spatial velocity in body
//     coordinates (angular velocity, then the velocity of the body origin), while MuJoCo's qvel is
//     (velocity of the body origin in world coordinates, angular velocity in body coordinates):
//     qvel = (R v_o, w), and qfrc = (R f, n) for abdyn's (n, f). abdyn::mujoco::stateFromAbdyn and
//     stateToAbdyn (conventions/mujoco.hpp) convert whole states.
//   - A body with joints is one abdyn body per joint: the joints become a chain of massless bodies named
//     "<body>/<joint>", the last of which is the body itself, named after it and carrying its inertia.
//     Each body of the chain has its frame at its joint's anchor (joint pos): the abdyn body's frame is
//     the MuJoCo body's frame moved to its last joint's pos (the same frame when pos is zero, as in most
//     files).
//   - A body without joints (static, or mocap) is fused into its parent, as MuJoCo's fusestatic does: its
//     inertia is added to the parent's body (dropped on the world), and it becomes a Fixed frame there.
//   - Sites become User frames (named after the site, "site/<name>" when a body has the name too, or
//     "<body>/site<k>" when unnamed); geoms become the model's geometry (Geometry, named after the geom
//     or "<body>/geom<k>"; collision when contype or conaffinity is nonzero, visual otherwise): spheres,
//     capsules, cylinders, boxes, ellipsoids and planes with MuJoCo's sizes turned into Geometry's, and
//     meshes, placed with the mesh's refpos and refquat, their collision meshes loaded with their convex
//     hulls (MjcfOptions::load_collision_meshes). Height fields and primitives fitted to meshes are not
//     kept (a warning says so). Each geometry keeps its contype and conaffinity (Geometry's filter bits,
//     which body contacts honour as MuJoCo does); <contact><exclude> pairs are in
//     MjcfModel::excluded_geometry_pairs, with MjcfModel::excluded_pairs, body_contacts and filter_parent
//     for the contact settings (the program's simulate passes them). World geoms (the floor) are not body contacts: GroundContactSettings'
//     plane stands for a floor.
//   - <inertial> gives a body's mass, centre of mass and inertia (diaginertia in the frame of its
//     orientation, or fullinertia, used as written: MuJoCo's diagonalisation of fullinertia and of
//     multi-geom bodies stops at 1e-12 absolute, which changes its mass matrix by up to about 1e-9
//     relative on some bodies; abdyn computes the exact tensor). Without <inertial> (or with
//     inertiafromgeom="true"), the geoms in inertiagrouprange give it, from mass or density (sphere,
//     capsule, cylinder, ellipsoid, box: MuJoCo's formulas; mesh geoms as MuJoCo 2.2.2 computes a mesh's
//     volume inertia, in its single-precision steps, with refpos, refquat, scale and exactmeshinertia:
//     by default every pyramid from the triangles' centroid counts positive and the volume is that of
//     the box with the mesh's principal moments; meshes from STL and OBJ files or from vertex and face
//     data in the XML, vertex data alone standing for its convex hull, whose triangles MuJoCo lists from
//     other corners, a difference of a few 1e-8 relative; shellinertia and primitives fitted to meshes
//     are refused for inertia). <compiler> boundmass, boundinertia,
//     balanceinertia and settotalmass apply as in MuJoCo (after MjcfOptions' own bounds raise them).
//   - Joint armature, damping, stiffness (toward springref; ball and free joints toward qpos0) and
//     frictionloss become Model::armature, damping, stiffness / springReference and friction; a range
//     with limited="true" (or with autolimits, or without limited: MuJoCo 2.2.2 refuses such files, later
//     versions read the range as limits) gives the position limits of a hinge or slide.
//   - <option> gravity (zero with <flag gravity="disable"/>) and timestep (Model::timestep) are kept;
//     <flag passive="disable"/> drops damping and springs. Keyframes become Model::configurations
//     (qpos0 when a key gives no qpos); actuators on joints with one coordinate become Model::actuators.
//   - Equality constraints: connect and weld become loop closures, joint equalities with a linear
//     polynomial joint couplings, in MjcfModel::constraints (loadMjcfModel). Their anchors are placed at
//     qpos0, as MuJoCo does.
//   - Everything else that changes no dynamics of the tree (tendons, sensors, contact pairs, cameras,
//     lights, textures and materials, visual settings, fluid forces, springdamper) is read past with one
//     warning per kind naming what is not modelled. coordinate="global" is refused.
//   - <composite> types particle, grid, rope and loop are generated as MuJoCo 2.2.2 generates them (bodies,
//     joints, geoms and sites with its names, from MuJoCo's built-in defaults and the composite's own geom
//     and joint attributes; a loop's connect equality and exclude); their tendons and the equalities on
//     them are not modelled (a warning says so). Types cloth, box, cylinder and ellipsoid are refused.
//
// Every problem throws abdyn::Error naming the file, the line and the element: a missing or unreadable
// file, malformed XML, an unknown element, joint type or keyword, a number that does not parse or is not
// finite, more than one orientation on an element, an include cycle (includes nest at most 16 deep and
// bring at most 1000 files), a missing mesh file needed for inertia, an inertia MuJoCo would refuse. The
// text of each file passes the same limits as URDF's before parsing (512 MiB, 98 levels, 256
// attributes, 16 million elements). Warnings go to abdyn::logger().

#include <string>
#include <utility>
#include <vector>

#include "abdyn/constraints/loop_closure.hpp"
#include "abdyn/model/model.hpp"

namespace abdyn {

/// Repairs loadMjcf applies on top of what the file's `<compiler>` asks for (MuJoCo's own compiler options).
struct MjcfOptions {
  /// Replace each body inertia that breaks the triangle inequality by the isotropic one with the same
  /// trace (as `<compiler balanceinertia="true"/>`, which also turns it on).
  bool balance_inertia = false;
  /// Lower bound on every body's mass; the larger of this and `<compiler boundmass>` applies. 0: none.
  double bound_mass = 0.0;
  /// Lower bound on every body's principal moments; the larger of this and `<compiler boundinertia>`
  /// applies. 0: none.
  double bound_inertia = 0.0;
  /// Read the mesh file of every collision mesh geom at load (STL, OBJ, DAE with assimp) and compute its
  /// convex hull (Geometry::mesh, shared by the geoms naming one mesh; meshes given as vertex data in the
  /// file are always kept so). A mesh that cannot be read is a warning naming it: the shape keeps no mesh
  /// data, so contacts skip it.
  bool load_collision_meshes = true;
  /// Bound on the vertices of each collision mesh's convex hull (MuJoCo's maxhullvert); 0: no bound,
  /// otherwise at least 4.
  int max_hull_vertices = 0;
};

/// A model loaded from MJCF with what lies outside the tree.
struct MjcfModel {
  Model model;  ///< the tree, as loadMjcf returns it
  /// The file's connect and weld equalities (loop closures) and linear joint equalities (couplings),
  /// active ones only.
  ConstraintSet constraints;
  /// One line per kind of element read past (what abdyn does not model), as warned.
  std::vector<std::string> not_modelled;
  /// Body pairs whose geometries never collide with each other, abdyn body indices (smaller first): with
  /// MuJoCo's parent filter on (filter_parent), each body with several joints and its parent body (abdyn's own
  /// parent-child rule sees the last body of the joints' chain, whose parent is not that body). They are what
  /// GroundContactSettings::excluded_body_pairs (constraints/row_contacts.hpp) takes.
  std::vector<std::pair<int, int>> excluded_pairs;
  /// The geometry pairs of the file's `<contact><exclude body1 body2>`: every geom of body1 with every geom of
  /// body2 (indices into Model::geometries(), smaller first; a static body's own geoms only, not those of the
  /// abdyn body it is fused into), what GroundContactSettings::excluded_geometry_pairs takes.
  std::vector<std::pair<int, int>> excluded_geometry_pairs;
  /// Whether MuJoCo collides the file's geoms with each other by their filter bits (Geometry::contype and
  /// conaffinity): false when `<option><flag contact="disable"/>` (or constraint) or
  /// `<option collision="predefined">` leaves only explicit pairs, which abdyn does not model. The program's
  /// simulate turns body contacts on when it is true (GroundContactSettings, SimulatorSettings::body_contacts).
  bool body_contacts = true;
  /// MuJoCo's parent filter: false with `<option><flag filterparent="disable"/>`, which lets a body collide
  /// with its parent; GroundContactSettings::exclude_parent_child takes it.
  bool filter_parent = true;
};

/// Loads the MJCF file at `path` (includes and mesh files relative to its folder). Throws abdyn::Error.
Model loadMjcf(const std::string& path, const MjcfOptions& options = {});
/// Loads an MJCF document held in memory; relative includes and meshes are looked up in `base_dir`
/// (the working directory when empty). Errors start with "`<string>`".
Model loadMjcfString(const std::string& xml, const MjcfOptions& options = {}, const std::string& base_dir = "");

/// loadMjcf with the equality constraints and the list of what is not modelled.
MjcfModel loadMjcfModel(const std::string& path, const MjcfOptions& options = {});
/// loadMjcfString with the equality constraints and the list of what is not modelled.
MjcfModel loadMjcfModelString(const std::string& xml, const MjcfOptions& options = {}, const std::string& base_dir = "");

}  // namespace abdyn
