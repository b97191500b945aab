#pragma once
/// @file
/// Forward kinematics: body transforms, velocities and accelerations, and the poses, spatial
/// velocities and accelerations of bodies and frames in the three usual reference frames.

#include <Eigen/Geometry>

#include "abdyn/model/data.hpp"

namespace abdyn {

/// Where a spatial quantity (velocity, acceleration, Jacobian column) of a frame F is expressed.
enum class ReferenceFrame {
  Local,              ///< in F's coordinates, about F's origin (body Jacobian)
  World,              ///< in world coordinates, about the world origin (spatial Jacobian)
  LocalWorldAligned,  ///< in world axes, about F's origin: linear part = velocity of F's origin in the
                      ///< world (RBDL's point Jacobian, Pinocchio's LOCAL_WORLD_ALIGNED)
};

/// Positions: data.X_up, data.X_body_world.
void forwardKinematics(const Model& model, Data& data, const Eigen::VectorXd& q);
/// Positions and velocities: also data.v.
void forwardKinematics(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v);
/// Positions, velocities and accelerations (without gravity): also data.a.
void forwardKinematics(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                       const Eigen::VectorXd& qdd);

// The queries below read what the last forwardKinematics call left in data.

/// X_F_0: world coordinates to frame-F coordinates.
Plx frameTransform(const Model& model, const Data& data, int frame);
/// Pose of frame F in the world (rotation R_0_F and position of F's origin).
Eigen::Isometry3d framePose(const Model& model, const Data& data, int frame);
/// Pose of body i in the world.
Eigen::Isometry3d bodyPose(const Data& data, int body);

/// Spatial velocity of the body frame F is attached to, seen at F (needs velocities).
Motion frameVelocity(const Model& model, const Data& data, int frame, ReferenceFrame rf);
/// Spatial acceleration (d/dt of the spatial velocity, not the classical one) of F's body (needs accelerations).
Motion frameAcceleration(const Model& model, const Data& data, int frame, ReferenceFrame rf);
/// Classical acceleration of F's origin in world coordinates: d/dt of its world velocity (needs accelerations).
Vector3 frameClassicalAcceleration(const Model& model, const Data& data, int frame);
/// Classical acceleration in world coordinates of a point fixed in a body, given in body coordinates.
Vector3 pointClassicalAcceleration(const Data& data, int body, const Vector3& point_in_body);

}  // namespace abdyn
