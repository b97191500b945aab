#pragma once
/// @file
/// One step of orientation integration with a linearly varying angular velocity, by the Magnus expansion.
///
/// Over a step of length h the angular velocity is omega(t) = omega0 + alpha t (constant angular
/// acceleration alpha). The quaternion obeys
///   Body frame  (omega in body coordinates):  qdot = 1/2 q * (0, omega)  =>  q(h) = q0 * exp(Omega / 2)
///   World frame (omega in parent coordinates): qdot = 1/2 (0, omega) * q  =>  q(h) = exp(Omega / 2) * q0
/// where exp is the quaternion exponential of the pure quaternion (0, Omega / 2) and Omega, the Magnus
/// vector, is
///   Omega1 = integral of omega = omega0 h + alpha h^2 / 2
///   Omega2 = c h^3 / 12 (alpha x omega0),   c = +1 for the world frame, -1 for the body frame.
/// Omega1 alone is exact when alpha is parallel to omega0 and gives a second-order method; Omega1 +
/// Omega2 gives a fourth-order method (the next terms are O(h^5)). The sign c comes from the side of
/// the multiplication (derivation in docs/rotations.md; it is checked against a fine reference
/// integration in tests/test_rotation_integration.cpp).

#include "abdyn/spatial/quaternion.hpp"

namespace abdyn {

/// The coordinates omega is given in: the body's (qdot = 1/2 q * (0, omega)) or the parent's (qdot = 1/2 (0, omega) * q).
enum class AngularVelocityFrame { Body, World };
/// Terms of the Magnus vector: Omega1 (second-order method) or Omega1 + Omega2 (fourth order).
enum class MagnusOrder { First, Second };
/// The quaternion exponential: exact (trigonometric) or truncatedExp3 (small steps only).
enum class QuaternionExp { Exact, TruncatedThirdOrder };

/// The Magnus vector Omega of one step: Omega1, or Omega1 + Omega2 with the sign of the frame.
Vector3 magnusVector(const Vector3& omega0, const Vector3& alpha, double h, MagnusOrder order,
                     AngularVelocityFrame frame);

/// The trig-free exponential of the pure quaternion (0, u), truncated after the u^3 term and
/// renormalised: (1 - |u|^2 / 2, (1 - |u|^2 / 6) u) / norm (never zero). Its rotation axis is exact; its
/// rotation angle 2 atan2((1 - |u|^2 / 6) |u|, 1 - |u|^2 / 2) exceeds the exact 2 |u| by about |u|^5 / 15
/// (relative error 0.08% at a 45 degree rotation, 1.2% at 90 degrees), so it suits small steps only.
/// Throws abdyn::InvalidArgument for non-finite u.
Quaternion truncatedExp3(const Vector3& u);

/// One step: the orientation at t = h from q0 at t = 0, with omega(t) = omega0 + alpha t expressed in
/// `frame`, the Magnus vector of `order` and the quaternion exponential `exp`. The result has the norm
/// of q0 up to rounding.
Quaternion integrateRotation(const Quaternion& q0, const Vector3& omega0, const Vector3& alpha, double h,
                             AngularVelocityFrame frame, MagnusOrder order, QuaternionExp exp);

}  // namespace abdyn
