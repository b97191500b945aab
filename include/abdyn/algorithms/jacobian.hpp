#pragma once
/// @file
/// Frame Jacobians: J maps v to the spatial velocity of a frame's body seen at the frame, expressed per
/// ReferenceFrame (see kinematics.hpp); rows are angular then linear.

#include "abdyn/algorithms/kinematics.hpp"

namespace abdyn {

/// data.S_world (6 x nv): every velocity coordinate's motion-subspace column in world coordinates, about
/// the world origin (see Data); the constraint row builders (rows.hpp) read it. Needs data.X_body_world
/// (forwardKinematics) and records which X_body_world it belongs to (Data::S_world_stamp). O(nv).
const Matrix6X& jointJacobians(const Model& model, Data& data);

/// J (6 x nv) of frame F, into data.J. Runs forward kinematics of positions.
const Matrix6X& frameJacobian(const Model& model, Data& data, const Eigen::VectorXd& q, int frame, ReferenceFrame rf);

/// dJ/dt (6 x nv) of frame F along velocity v, into data.dJ; also leaves J in data.J. Runs forward
/// kinematics of positions and velocities. For LocalWorldAligned this is the derivative of the
/// point Jacobian, so dJ v + J qdd is the classical acceleration of F's origin.
const Matrix6X& frameJacobianTimeVariation(const Model& model, Data& data, const Eigen::VectorXd& q,
                                           const Eigen::VectorXd& v, int frame, ReferenceFrame rf);

/// dJ/dt v in O(n) without forming dJ: the frame's acceleration at qdd = 0 (for LocalWorldAligned,
/// the classical acceleration of F's origin: angular part in world axes, linear part the origin's
/// classical acceleration). Runs forward kinematics of accelerations with qdd = 0.
Motion frameJacobianTimeVariationTimesV(const Model& model, Data& data, const Eigen::VectorXd& q,
                                        const Eigen::VectorXd& v, int frame, ReferenceFrame rf);

}  // namespace abdyn
