#pragma once
/// @file
/// Exponential and logarithm of rigid motions (SE(3)) for twists in angular-first order. The floating
/// joint integrates its body velocity through these, so a constant body twist is followed exactly
/// (a screw motion) rather than by separate updates of position and orientation.

#include <Eigen/Geometry>

#include "abdyn/spatial/motion.hpp"

namespace abdyn {

/// The pose reached from the identity by moving for unit time with constant body twist [w; v]:
/// R = exp(w), p = V(w) v with V(w) = 1 + (1 - cos t)/t^2 wx + (t - sin t)/t^3 wx^2, t = |w|
/// (V is the left Jacobian of SO(3)).
Eigen::Isometry3d expSE3(const Motion& twist);

/// The inverse of expSE3: the twist whose exponential is T (rotation angle in [0, pi]).
Motion logSE3(const Eigen::Isometry3d& T);

}  // namespace abdyn
