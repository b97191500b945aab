#pragma once
/// @file
/// Centre of mass, its velocity and Jacobian; kinetic and potential energy; spatial momentum.

#include "abdyn/algorithms/kinematics.hpp"

namespace abdyn {

/// Centre of mass of the whole model in world coordinates (runs forward kinematics of positions).
Vector3 centerOfMass(const Model& model, Data& data, const Eigen::VectorXd& q);
/// Velocity of the centre of mass in world coordinates (runs forward kinematics of velocities).
Vector3 centerOfMassVelocity(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v);
/// J_com (3 x nv, world coordinates) with centerOfMassVelocity = J_com v, into data.J_com.
const Matrix3X& centerOfMassJacobian(const Model& model, Data& data, const Eigen::VectorXd& q);

/// Kinetic energy 1/2 sum_i v_i . I_i v_i (runs forward kinematics of velocities).
double kineticEnergy(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v);
/// Potential energy of gravity, -sum_i m_i g . c_i, zero at the world origin.
double potentialEnergy(const Model& model, Data& data, const Eigen::VectorXd& q);
/// kineticEnergy + potentialEnergy from one kinematics pass (half the cost of calling both).
double mechanicalEnergy(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v);
/// Total spatial momentum, in world coordinates about the world origin (a force-like vector: [angular; linear]).
Force spatialMomentum(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v);

}  // namespace abdyn
