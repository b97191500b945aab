#pragma once
// Reduced models: a model with some of its joints welded at given positions (Pinocchio's
// buildReducedModel). A controller that moves only some joints of a robot (the arm of a mobile
// manipulator, the legs of a humanoid with its arms held) simulates and differentiates the smaller model.
//
// Each locked joint becomes rigid at its coordinates in q_reference, and its body is merged into its
// parent's (recursively: into the nearest ancestor whose joint stays free, or the world):
//   - the merged body's inertia is added to that body (in its coordinates); bodies merged into the world
//     drop their inertia, as a URDF link welded to the world does;
//   - the merged body's name becomes a Fixed frame there, at the body's place for q_reference; its frames
//     and geometry move with it;
//   - the bodies that stay keep their names, joints (type, axis, limits, damping, friction, armature)
//     and order, with their tree placements composed through the welded joints.
// The result is the model loading the URDF gives with those joints made fixed at the same positions, to
// rounding (sums of inertias are added in another order).
// Mimic couplings between two free joints are kept; a coupling between two locked joints is dropped when
// q_reference satisfies it, and refused otherwise; a coupling between a locked and a free joint is refused
// (lock both or neither). Loop closures and couplings of a ConstraintSet are carried over by
// reduceConstraints (constraints/reduced_constraints.hpp).

#include <string>
#include <vector>

#include "abdyn/model/model.hpp"

namespace abdyn {

/// The model with `locked_joints` (joint names) welded at their coordinates in `q_reference` (model.nq
/// entries; quaternions are normalised), see above. Throws abdyn::InvalidArgument naming the argument for
/// an unknown or repeated joint name or a q_reference of the wrong size or with a non-finite entry, and
/// abdyn::Error for a mimic coupling that would lose a coordinate.
Model buildReducedModel(const Model& model, const std::vector<std::string>& locked_joints, const Eigen::VectorXd& q_reference);

}  // namespace abdyn
