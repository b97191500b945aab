#pragma once
/// @file
/// Rotation matrices of SO(3): construction (axis-angle, exponential map, elementary rotations),
/// the logarithm, validity checks, re-orthonormalisation and the right Jacobian of the exponential.
///
/// Conventions: every matrix is an active rotation, R v rotates the vector v within one frame; as a
/// frame orientation R_A_B its columns are B's axes in A. A rotation vector omega = angle * axis
/// (right-hand rule) has exp(omega) = expSO3(omega) = I + sin(t)/t W + (1 - cos t)/t^2 W^2 with
/// W = skew(omega), t = |omega| (Rodrigues' formula). See docs/rotations.md.

#include "abdyn/spatial/types.hpp"

namespace abdyn {

/// sin(x) / x, continued by 1 at x = 0 and accurate to rounding for every x (Taylor series near 0).
double sinc(double x);

/// The rotation by `angle` radians about `axis` (right-hand rule). The axis is normalised here; throws
/// abdyn::InvalidArgument for a non-finite axis or angle and abdyn::Error for an axis shorter than 1e-12.
Matrix3 rotationFromAxisAngle(const Vector3& axis, double angle);

/// The exponential map: the rotation by |omega| about omega / |omega|. Accurate to rounding at every
/// angle, including tiny ones (no division by |omega|).
Matrix3 expSO3(const Vector3& omega);

/// The logarithm: the rotation vector omega with |omega| in [0, pi] and expSO3(omega) == R. At angle pi,
/// where omega and -omega give the same R, the component of largest magnitude is returned positive.
/// R must be a rotation (see checkRotation); this is not checked.
Vector3 logSO3(const Matrix3& R);

/// A rotation as a unit axis and an angle (right-hand rule).
struct AxisAngle {
  Vector3 axis;  ///< unit length; (1, 0, 0) when angle is 0
  double angle;  ///< radians, in [0, pi]
};

/// The axis-angle form of R (same choice as logSO3 at angle pi).
AxisAngle axisAngleFromRotation(const Matrix3& R);

/// Whether R is a rotation: finite, |R^T R - I| <= tol (Frobenius norm) and |det R - 1| <= tol.
/// Throws abdyn::InvalidArgument for a negative or non-finite tol.
bool isRotation(const Matrix3& R, double tol = 1e-9);

/// Throws abdyn::Error unless isRotation(R, tol); the message starts with "abdyn::checkRotation: ",
/// names `what` (e.g. "joint 'elbow' origin") and says what is wrong: non-finite entries, the
/// orthonormality error |R^T R - I|, or the determinant (a reflection when it is -1).
void checkRotation(const Matrix3& R, const char* what, double tol = 1e-9);

///@{
/// Elementary active rotations about the x, y and z axes: rotZ(a) maps (1, 0, 0) to (cos a, sin a, 0).
Matrix3 rotX(double angle);
Matrix3 rotY(double angle);
Matrix3 rotZ(double angle);
///@}

/// The rotation nearest to M in the Frobenius norm, U diag(1, 1, det(U V^T)) V^T from the SVD
/// M = U S V^T. Meant for repairing rounding drift; for a rank-deficient M the nearest rotation is not
/// unique and one of them is returned. Throws abdyn::InvalidArgument for non-finite entries.
Matrix3 orthonormalize(const Matrix3& M);

/// Right Jacobian of the exponential map: expSO3(phi + d) = expSO3(phi) expSO3(Jr(phi) d) + O(|d|^2).
/// Jr(phi) = I - (1 - cos t)/t^2 W + (t - sin t)/t^3 W^2, W = skew(phi), t = |phi|; small-angle safe.
/// The left Jacobian is Jr(-phi) = Jr(phi)^T.
Matrix3 rightJacobianSO3(const Vector3& phi);

/// Inverse of the right Jacobian: logSO3(expSO3(phi) expSO3(d)) = phi + Jr^-1(phi) d + O(|d|^2) for
/// |phi| < pi. Jr^-1(phi) = I + W/2 + (1/t^2 - cot(t/2)/(2t)) W^2; small-angle safe, singular at
/// t = 2 pi (defined for |phi| < 2 pi).
Matrix3 rightJacobianInverseSO3(const Vector3& phi);

}  // namespace abdyn
