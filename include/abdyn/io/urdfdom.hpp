#pragma once
// abdyn's Model from urdfdom's urdf::ModelInterface: the robot a ROS program already holds, parsed from
// its robot_description string by urdf::parseURDF and often edited before use (joints a controller does
// not move set to urdf::Joint::FIXED, say). Part of the optional component abdyn::urdfdom (CMake option
// ABDYN_WITH_URDFDOM; a downstream project: find_package(abdyn COMPONENTS urdfdom) and the target
// abdyn::urdfdom); the core library never links urdfdom.
//
// urdfdom's links and joints are converted into the document abdyn's own reader produces, and the one
// loader behind loadUrdf builds the model: every rule of abdyn/io/urdf.hpp applies unchanged (inertia
// checks and repairs, fixed-joint merging, mimics, limits, warnings, UrdfOptions). For a model urdfdom
// parsed from a file, buildModel(*urdf::parseURDFFile(f)) equals loadUrdf(f): the same bodies in the same
// order (siblings in the order of their joint names, which is also urdfdom's map order), names, limits,
// damping, mimics, frames and geometry. Differences that come from urdfdom itself:
//   - urdfdom keeps each orientation as a quaternion made from the file's rpy. The conversion recovers
//     the shortest decimal rpy that urdfdom turns into the same quaternion bit for bit (the file's own
//     rpy whenever it was written with at most 15 significant digits), so that placements are
//     identical; where there is none (an orientation set in code, or rpy with more digits) the
//     quaternion is used as is and placements agree to rounding (a few units in the last place).
//   - urdfdom drops elements it does not know, among them abdyn's <loop_joint> and Drake's
//     <drake:ball_constraint> (abdyn/io/urdf_loops.hpp): a urdfdom model has no loop closures. Its mimic
//     couplings are ConstraintSet::fromMimics(model); read loop joints from the same XML with
//     loadUrdfLoopsString(robot_description, model).
//   - urdfdom drops (with an error message of its own) shapes it cannot read, among them a <visual>
//     whose <material> has no name, which abdyn keeps; the link's other unnamed shapes are then numbered
//     without it. Materials are checked by urdfdom, not here.
// Error messages start with "<urdfdom model 'NAME'>" (NAME the robot's name) and name the link or joint
// at fault, like loadUrdf's; a null link, joint, inertial, visual or geometry pointer (an edited model)
// is refused the same way.

#include <urdf_model/model.h>

#include "abdyn/io/urdf.hpp"
#include "abdyn/model/model.hpp"

namespace abdyn {

/// The Model of urdfdom's `urdf` (see above), loaded with `options` as loadUrdf loads a file. Also takes
/// ROS 1's urdf::Model, a subclass of urdf::ModelInterface. Throws abdyn::Error on any problem.
Model buildModel(const urdf::ModelInterface& urdf, const UrdfOptions& options = {});

}  // namespace abdyn
