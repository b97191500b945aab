#pragma once
/// @file
/// Loading a Model from a URDF robot description (read by abdyn itself, on tinyxml2).
///
/// How the file maps onto the model:
///   - The model is named after `<robot name>`. Body 0 is the world, named "world"; when the URDF's root
///     link is itself called "world", that link is the world.
///   - By default the root link is welded to the world: it becomes a Fixed frame on body 0. With
///     UrdfOptions::floating_base it is body 1 instead, attached by a Floating joint named "root_joint"
///     (q = position and unit quaternion of the root link in the world, see joint.hpp). If the root link
///     is "world" and its only child joint is fixed (most arm descriptions), the floating joint carries
///     that child link and everything welded to it, placed at the child link's frame: the model is the
///     one the same file without the "world" link gives, with the same q and v layout. A "world" with
///     several child joints, or a moving one, cannot float and is refused.
///   - Every link reached through a moving joint is one body, named after the link; the joint keeps its
///     URDF name. A link reached through a fixed joint is merged into its parent's body: its inertia is
///     added to that body, it becomes a Fixed frame there, and its children hang from that body. Links
///     merged into the world keep their frames and geometry, but their inertia is dropped (the world
///     does not move).
///   - Bodies are numbered in depth-first preorder, so each branch's bodies are contiguous. Siblings are
///     visited in the alphabetical order of their joint names, the order urdfdom and Pinocchio give
///     them, so that body numbers match theirs.
///   - Joint types: revolute (position limits from `<limit>`), continuous (revolute without position
///     limits), prismatic, fixed (merged, see above), floating, planar (the `<axis>` is the plane normal; the
///     first in-plane direction is the coordinate axis least aligned with the normal, made orthogonal
///     to it). "spherical", which URDF does not define but some exporters write, is read as a ball joint
///     (q a unit quaternion; `<axis>` and position limits ignored) with a warning. Revolute and prismatic
///     joints need a `<limit>` (lower and upper default to 0). `<limit effort velocity>` give the effort
///     and velocity limits of every coordinate of the joint, as written: many files write 0 for "not
///     given", which abdyn keeps as a zero limit; a negative limit (-1 is another "not given") is taken as
///     absent (infinite), with a warning; a missing effort or velocity attribute, which URDF requires, is
///     absent (infinite) with a warning naming it. Without `<limit>` (continuous, planar, floating joints)
///     the limits are infinite; `<limit lower upper>` on such a joint, and `<limit>` or `<dynamics>` on a
///     fixed joint, are ignored with a warning. `<dynamics damping friction>`, `<mimic joint multiplier
///     offset>` and `<visual>`/`<collision>` shapes are kept; `<safety_controller>`, `<calibration>`,
///     materials, `<sensor>`, `<gazebo>` and `<transmission>` are ignored. Collision meshes
///     are read with their convex hulls (UrdfOptions::load_collision_meshes).
///   - A link with several `<inertial>` elements (URDF allows one) uses the first, with a warning naming
///     their masses. An `<inertial>` with `<mass>` but no `<inertia>` is a point mass, and a missing entry
///     of `<inertia>` is 0, each with a warning (urdfdom 3.0.1 refuses such an `<inertial>`).
///   - Numbers written loosely whose meaning is plain are read with a warning saying how: commas between
///     them ("0.07, 0, -0.69"), a stray '.' after a number that has its decimal point ("-1.57."), extra
///     zeros after the last number of a list ("-3.14159 1.57079 0 0"). A `<robot>` without a name is named
///     after the file, and a link written twice, the same both times, is read once, each with a warning.
///     Any other malformed number, and a link defined twice differently, refuse the file.
///   - A xacro source (`<xacro:...>` elements, `${...}` substitutions) is not a URDF: top-level xacro
///     elements are ignored with a warning, and any error in such a file says that it is a xacro source
///     and how to expand it (xacro FILE.urdf.xacro > FILE.urdf).
///   - `<mimic>` on a fixed joint is ignored with a warning. A `<mimic>` whose leader is missing or fixed is
///     dropped with a warning (Model::mimics() does not hold it, so no algorithm uses it).
///   - Elements that cannot change the model's kinematics or dynamics never refuse a file. A `<visual>` or
///     `<collision>` that cannot be read (no `<geometry>`, a shape other than box, cylinder, sphere and
///     mesh, a missing or non-finite number, a negative size) is dropped with a warning naming the link
///     and the element; collision shapes dropped are missing for Simulator contacts, which the warning
///     says. A `<material>` without a name is ignored with a warning, a `<visual>` naming a material the
///     file does not define is a warning (abdyn reads no material). Everything else that cannot be read
///     (an `<inertial>`, a `<joint>`, the tree) refuses the file.
///
/// Inertia rules. Links without `<inertial>` are massless. Every link's mass must be finite and not
/// negative. Its rotational inertia (about its centre of mass) is judged by its principal moments
/// l1 <= l2 <= l3 with the tolerance
///
///     tol = 1e-9 * trace(I_link) + 1e-15 * T,    T = the largest trace(I) over all links of the file,
///
/// the first term for rounding relative to the link itself (files print 6 to 9 digits), the second for
/// numbers that are zero at the precision of the whole robot (2.2e-16 T is one rounding of the largest).
///   - l1 >= -tol: positive semi-definite. A point mass (zero inertia with mass) or a thin rod (one zero
///     moment) is valid: what must be positive is the body that moves, below. A massless link whose
///     moments are all within tol of zero gets exactly zero inertia.
///   - l1 < -tol: indefinite. Warned (naming the link and its moments), and kept as written; the body it
///     is merged into decides (next item).
///   - l3 - l1 - l2 > 1e-6 * trace + tol: the triangle inequality fails (common in CAD exports; 1e-6 lets
///     values printed to six digits pass). Warned and kept as written, or rebalanced with
///     UrdfOptions::balance_inertia.
/// Links welded to the world are checked for non-finite numbers and negative masses only: their inertia
/// is dropped.
/// After fixed joints are merged, each moving body's composite inertia (the sum of its links' inertias)
/// is checked: it must be positive semi-definite within the same tolerance (with T and its own trace);
/// otherwise the file is refused, naming the body and its indefinite links. Then the mass matrix must be
/// positive definite: every moving joint must move some mass or inertia, and the L^T D L factorisation of
/// M at a generic configuration must have no pivot below 1e-10 of its diagonal entry (a massless body
/// carrying a single one-DoF body under a floating joint, or a point mass on a free joint, fails this).
/// A file whose M is singular (a file without any `<inertial>`, exported for visualisation or inverse
/// kinematics, or one with massless moving links) is a valid kinematic description: it loads with one
/// warning that names its massless bodies and the options that give them dynamics (bound_mass and
/// bound_inertia), and Model::hasDynamics() is false, so that kinematics, Jacobians and frames work while
/// every dynamics call refuses the model (abdyn::Error naming those bodies and options, never NaN).
/// M singular only at the neutral configuration (two axes lined up across a point-mass link) is a
/// warning. When T is 0 (no link of the file has rotational inertia), only exact zeros are
/// zero.
///
/// Every problem -- a missing or unreadable file, malformed XML, a missing element or attribute or a
/// number that does not parse in an element that matters, a structure that is not one tree, a non-finite number, a negative mass, an indefinite body
/// inertia, a zero axis -- throws abdyn::Error. A lower position limit above the
/// upper one is a warning, and the joint's position limits are ignored (strict mode: an error).
/// Its message starts with the source (the path, or "`<string>`") and names the link or joint at fault.
/// Before any XML parser sees the text, a linear pre-scan refuses documents beyond abdyn's limits (512 MiB,
/// elements nested 98 deep, 256 attributes on one element, 16 million elements), which would otherwise
/// overflow the parsers' stack or keep them busy for minutes; loadUrdfLoops applies the same limits.
/// Numbers are read independently of the process's locale. Loading is linear in the file's size in time
/// and memory (a 10^5-link chain: docs/performance.md, "Loading"), and safe from several threads at once.
/// Warnings go to abdyn::logger() (see logging.hpp), one per link or joint, prefixed by the source;
/// nothing is printed.

#include <map>
#include <string>

#include "abdyn/model/model.hpp"
#include "abdyn/spatial/types.hpp"

namespace abdyn {

/// How loadUrdf builds the model: floating base, gravity, strictness and inertia repair.
struct UrdfOptions {
  /// Attach the root link to the world with a Floating joint named "root_joint" (nq 7, nv 6) instead
  /// of welding it to the world. With a root link named "world", see above.
  bool floating_base = false;
  /// Gravity of the model, in world coordinates (URDF files do not specify it).
  Vector3 gravity = Vector3(0.0, 0.0, -9.81);
  /// Refuse what the loader otherwise repairs or ignores with a warning: link inertias that are
  /// indefinite or break the triangle inequality (unless balance_inertia repairs them), negative or
  /// missing effort or velocity limits, a revolute or prismatic joint without `<limit>` (loaded unbounded
  /// otherwise), a `<mimic>` on a fixed joint or naming a missing or fixed leader,
  /// unreadable `<visual>` or `<collision>` elements and nameless `<material>` elements, several
  /// `<inertial>` in a link, an `<inertial>` without `<inertia>` or with missing entries, "spherical"
  /// joints, xacro elements and a singular mass matrix (a kinematic description). A non-unit axis and the
  /// unused joint elements above are still only warnings.
  bool strict = false;
  /// Replace the rotational inertia of each link that breaks the triangle inequality by the isotropic
  /// inertia with the same trace: every principal moment becomes (l1 + l2 + l3) / 3 (MuJoCo's
  /// compiler option balanceinertia does the same to its bodies). Logged as a warning per link.
  bool balance_inertia = false;
  /// Lower bound on the mass of each moving body (its links merged): a lighter body's mass is raised
  /// to it, at the body's centre of mass (MuJoCo's boundmass). 0: no bound. Logged (level info) per
  /// body raised.
  double bound_mass = 0.0;
  /// Lower bound on the principal moments of each moving body's rotational inertia about its centre of
  /// mass: smaller moments are raised to it, keeping the principal axes (MuJoCo's boundinertia). With
  /// bound_mass, this gives dynamics to files whose massless links make the mass matrix singular. 0: no
  /// bound.
  double bound_inertia = 0.0;
  /// Load a moving body whose composite inertia is indefinite (beyond the tolerance above) with a
  /// warning instead of refusing the file, and, in strict mode, link inertias that are indefinite or
  /// break the triangle inequality. Negative masses and non-finite numbers are always refused. A point mass, a thin rod or a triangle violation loads without it (abdyn's
  /// --accept-invalid-inertia is the same option).
  bool accept_invalid_inertia = false;
  /// Folders of ROS packages by name, for the file's package://NAME/... mesh names: searched before
  /// ROS_PACKAGE_PATH and AMENT_PREFIX_PATH (abdyn/io/resource_resolver.hpp). The model keeps mesh names
  /// as written; whoever reads the meshes finds them with ResourceSearch::forFile(path, package_dirs).
  std::map<std::string, std::string> package_dirs;
  /// Read the mesh file of every `<collision>` mesh at load (abdyn/io/mesh.hpp: STL, OBJ, and DAE when built
  /// with assimp), found as package_dirs says, with its scale applied, and compute its convex hull
  /// (Geometry::mesh, shared by the shapes naming one file at one scale). A mesh that cannot be found or
  /// read is a warning naming it (strict mode too): the shape keeps no mesh data, so contacts skip it, and
  /// the body keeps its other shapes. Visual meshes are never read.
  bool load_collision_meshes = true;
  /// Bound on the vertices of each collision mesh's convex hull (MuJoCo's maxhullvert); 0: no bound,
  /// otherwise at least 4.
  int max_hull_vertices = 0;
};

/// Loads the URDF file at `path`. Throws abdyn::Error (message starting with the path) on any problem.
Model loadUrdf(const std::string& path, const UrdfOptions& options = {});

/// Loads a URDF document held in memory (relative mesh names are relative to the current directory). Throws
/// abdyn::Error (message starting with "`<string>`").
Model loadUrdfString(const std::string& xml, const UrdfOptions& options = {});

}  // namespace abdyn
