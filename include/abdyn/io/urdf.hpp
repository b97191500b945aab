#pragma once
// Loading a Model from a URDF robot description (parsed with urdfdom).
//
// How the file maps onto the model:
//   - The model is named after <robot name>. Body 0 is the world, named "world"; when the URDF's root
//     link is itself called "world", that link is the world.
//   - By default the root link is welded to the world: it becomes a Fixed frame on body 0. With
//     UrdfOptions::floating_base it is body 1 instead, attached by a Floating joint named "root_joint"
//     (q = position and unit quaternion of the root link in the world, see joint.hpp).
//   - Every link reached through a moving joint is one body, named after the link; the joint keeps its
//     URDF name. A link reached through a fixed joint is merged into its parent's body: its inertia is
//     added to that body, it becomes a Fixed frame there, and its children hang from that body. Links
//     merged into the world keep their frames and geometry, but their inertia is dropped (the world
//     does not move).
//   - Bodies are numbered in depth-first preorder, so each branch's bodies are contiguous. Siblings are
//     visited in the alphabetical order of their joint names: urdfdom keeps joints in a name-sorted map,
//     so the order of the file is not available.
//   - Joint types: revolute (position limits from <limit>), continuous (revolute without position
//     limits), prismatic, fixed (merged, see above), floating, planar (the <axis> is the plane normal; the
//     first in-plane direction is the coordinate axis least aligned with the normal, made orthogonal
//     to it). <limit effort velocity> give the effort and velocity limits of every coordinate of the
//     joint, as written: many files write 0 for "not given", which abdyn keeps as a zero limit. Without
//     <limit> (continuous, planar, floating joints) the limits are infinite. <dynamics damping friction>,
//     <mimic joint multiplier offset> and <visual>/<collision> shapes are kept; <safety_controller>,
//     <calibration>, materials and <transmission> are ignored.
//   - Links without <inertial> are massless. A link with mass must have a positive definite rotational
//     inertia obeying the triangle inequality (one without mass: positive semi-definite). Every
//     <inertial> is checked, also those of links welded to the world, whose inertia is then dropped.
//
// Every problem -- a missing or unreadable file, malformed XML, a URDF urdfdom rejects, a structure that
// is not one tree, a non-finite number, a negative mass, an invalid inertia, a zero axis, a lower limit
// above the upper one, a moving joint that moves no mass -- throws abdyn::Error. Its message starts with
// the source (the path, or "<string>") and names the link or joint at fault. Before any XML parser sees the
// text, a linear pre-scan refuses documents beyond abdyn's limits (256 MiB, elements nested 100 deep, 256
// attributes on one element, 8 million elements), which would otherwise overflow the parsers' stack or keep
// them busy for minutes; loadUrdfLoops applies the same limits. Nothing is printed:
// urdfdom's console output is routed to abdyn::logger() (see logging.hpp) while a file loads.

#include <string>

#include "abdyn/model/model.hpp"
#include "abdyn/spatial/types.hpp"

namespace abdyn {

struct UrdfOptions {
  /// Attach the root link to the world with a Floating joint named "root_joint" (nq 7, nv 6) instead
  /// of welding it to the world. The root link may not be named "world" then.
  bool floating_base = false;
  /// Gravity of the model, in world coordinates (URDF files do not specify it).
  Vector3 gravity = Vector3(0.0, 0.0, -9.81);
  /// Load links whose rotational inertia is not positive definite (or, without mass, not positive
  /// semi-definite) or violates the triangle inequality, logging a warning that names the link and the
  /// violation, instead of throwing. Negative masses and non-finite numbers are always rejected.
  bool accept_invalid_inertia = false;
};

/// Loads the URDF file at `path`. Throws abdyn::Error (message starting with the path) on any problem.
Model loadUrdf(const std::string& path, const UrdfOptions& options = {});

/// Loads a URDF document held in memory. Throws abdyn::Error (message starting with "<string>").
Model loadUrdfString(const std::string& xml, const UrdfOptions& options = {});

}  // namespace abdyn
