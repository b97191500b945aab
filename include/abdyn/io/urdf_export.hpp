#pragma once
// Writing a Model as a URDF robot description, for other tools (urdfdom, Pinocchio, ROS) and for abdyn
// itself: a reduced model (model/reduced_model.hpp) handed to another program, say.
//
// What the file holds:
//   - a link "world" for body 0, and one link per body, named after the body, with the body's inertia
//     (all its merged links together: mass, centre of mass as <origin xyz>, rotational inertia about it
//     in body axes, <origin rpy> zero); massless bodies have no <inertial>;
//   - each body's joint under its own name and type (revolute, continuous, prismatic, planar, floating),
//     placed on its parent body's link, with <axis>, <limit> (position limits of one-DoF joints; effort
//     and velocity where finite), <dynamics damping friction> where not zero, and <mimic>;
//   - each Fixed or User frame as a massless link on its body's link, through a fixed joint named
//     "<frame>_joint" (or a name that keeps the frames' order when the loader sorts siblings by joint
//     name, urdf.hpp); abdyn reads every one back as a Fixed frame;
//   - each visual and collision shape on the link it was declared in (Geometry::link), or on its body's
//     link when no frame has that name; capsules, ellipsoids and planes (which URDF cannot express) are
//     left out with a warning naming each;
//   - gravity in a comment (URDF has no element for it): load with UrdfOptions::gravity to restore it.
// Numbers are printed with 17 significant digits, so the reader gets every double back exactly; each
// orientation is written as the rpy that abdyn's rpyToMatrix turns into the model's rotation bit for bit
// when one exists near matrixToRpy's (a rotation made by one rpy always has one), else matrixToRpy's.
// Reading the file back gives the model again: bit for bit for models loaded from a URDF whose bodies and
// frames hang directly from their body's link, to rounding where the file composed several rotations
// (a frame or shape two fixed joints deep, whose rotation is a product).
// Joint types URDF cannot express (spherical, helical) throw abdyn::Error naming the joint.

#include <string>

#include "abdyn/model/model.hpp"

namespace abdyn {

/// The URDF document of `model` (see above).
std::string saveUrdfString(const Model& model);

/// `text` with the characters that end or open markup in an attribute value or element text (&, <, > and
/// the double quote) replaced by their XML entities: how saveUrdfString writes names and file names, and
/// what a program writing URDF text of its own applies to them.
std::string xmlEscaped(const std::string& text);

/// Writes saveUrdfString(model) to the file at `path`. Throws abdyn::Error naming the path if it cannot
/// be written.
void saveUrdf(const Model& model, const std::string& path);

}  // namespace abdyn
