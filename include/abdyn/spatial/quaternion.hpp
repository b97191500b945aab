#pragma once
/// @file
/// Quaternions for orientations, Hamilton convention: i^2 = j^2 = k^2 = ijk = -1, so i j = k.
///
/// q = w + x i + y j + z k = (w, v), stored as four plain doubles in the order w, x, y, z (no Eigen
/// member, so the layout does not depend on SIMD flags). Pinocchio and Eigen store (x, y, z, w): use
/// fromCoeffsXyzw / coeffsXyzw for their order.
///
/// A unit quaternion acts as the active rotation v -> q v q^-1; toRotationMatrix() gives the matrix of
/// that map, and the product q1 * q2 corresponds to R1 R2 (apply q2 first). As an orientation q_A_B,
/// it rotates B-coordinates into A-coordinates, like the rotation matrix R_A_B.
///
/// Rates: with w_b the angular velocity in the body frame and w_w = R w_b in the world (parent) frame,
///   qdot = 1/2 q * (0, w_b) = 1/2 B_body(q) w_b,   B_body(q)  = [ -v^T ; w I + skew(v) ]
///   qdot = 1/2 (0, w_w) * q = 1/2 B_world(q) w_w, B_world(q) = [ -v^T ; w I - skew(v) ]
/// (4x3, rows in w, x, y, z order; from the product rule (a, u)(b, p) = (ab - u.p, a p + b u + u x p)
/// with a = 0 or b = 0). For unit q, B^T B = I, so w = 2 B^T qdot. See docs/rotations.md.

#include <cmath>
#include <ostream>

#include "abdyn/spatial/types.hpp"

namespace abdyn {

/// A Hamilton quaternion (w, x, y, z), used as the orientation q_A_B (see the file comment).
class Quaternion {
 public:
  /// The identity rotation (1, 0, 0, 0).
  Quaternion() : w_(1.0), x_(0.0), y_(0.0), z_(0.0) {}
  /// From its coefficients w + x i + y j + z k (not normalised).
  Quaternion(double w, double x, double y, double z) : w_(w), x_(x), y_(y), z_(z) {}

  /// The identity rotation (1, 0, 0, 0).
  static Quaternion identity() { return Quaternion(); }
  /// From (w, x, y, z).
  static Quaternion fromCoeffsWxyz(const Vector4& c) { return Quaternion(c(0), c(1), c(2), c(3)); }
  /// From four doubles in (w, x, y, z) order, as a quaternion is stored in abdyn's configuration q.
  static Quaternion fromWxyz(const double* wxyz) { return Quaternion(wxyz[0], wxyz[1], wxyz[2], wxyz[3]); }
  /// From (x, y, z, w), the order of Pinocchio configurations and Eigen::Quaterniond::coeffs().
  static Quaternion fromCoeffsXyzw(const Vector4& c) { return Quaternion(c(3), c(0), c(1), c(2)); }
  /// The coefficients in (w, x, y, z) order.
  Vector4 coeffsWxyz() const { return Vector4(w_, x_, y_, z_); }
  /// The coefficients in (x, y, z, w) order (Pinocchio's and Eigen's).
  Vector4 coeffsXyzw() const { return Vector4(x_, y_, z_, w_); }

  /// The rotation by `angle` about `axis` (normalised here): (cos(angle/2), sin(angle/2) axis).
  /// Throws abdyn::InvalidArgument for a non-finite axis or angle, abdyn::Error for a zero axis.
  static Quaternion fromAxisAngle(const Vector3& axis, double angle);
  /// The unit quaternion of a rotation matrix (Shepperd's method), with w >= 0. R is assumed to be a
  /// rotation (see checkRotation); a slightly non-orthonormal R gives the normalised nearest result.
  /// Throws abdyn::InvalidArgument for non-finite entries.
  static Quaternion fromRotationMatrix(const Matrix3& R);

  ///@{
  /// The coefficient w (the scalar part), x, y or z.
  double w() const { return w_; }
  double x() const { return x_; }
  double y() const { return y_; }
  double z() const { return z_; }
  ///@}
  /// The vector part (x, y, z).
  Vector3 vec() const { return Vector3(x_, y_, z_); }

  /// Hamilton product.
  Quaternion operator*(const Quaternion& o) const {
    return Quaternion(w_ * o.w_ - x_ * o.x_ - y_ * o.y_ - z_ * o.z_,
                      w_ * o.x_ + x_ * o.w_ + y_ * o.z_ - z_ * o.y_,
                      w_ * o.y_ - x_ * o.z_ + y_ * o.w_ + z_ * o.x_,
                      w_ * o.z_ + x_ * o.y_ - y_ * o.x_ + z_ * o.w_);
  }
  /// (w, -x, -y, -z): the inverse rotation for a unit q.
  Quaternion conjugate() const { return Quaternion(w_, -x_, -y_, -z_); }
  /// w^2 + x^2 + y^2 + z^2.
  double squaredNorm() const { return w_ * w_ + x_ * x_ + y_ * y_ + z_ * z_; }
  /// |q|.
  double norm() const { return std::sqrt(squaredNorm()); }
  /// conjugate() / |q|^2, for any nonzero q. Throws abdyn::Error for a zero or non-finite q.
  Quaternion inverse() const;
  /// q / |q|. Throws abdyn::Error for a zero or non-finite q.
  Quaternion normalized() const;
  /// Whether | |q| - 1 | <= tol. Throws abdyn::InvalidArgument for a negative or non-finite tol.
  bool isUnit(double tol = 1e-9) const;

  /// q v q^-1, without forming a matrix. A non-unit q rotates like q / |q|. Throws abdyn::Error for a
  /// zero or non-finite q.
  Vector3 rotate(const Vector3& v) const;
  /// The active rotation matrix R with R v == rotate(v) (so also the rotation of q / |q|). Throws
  /// abdyn::Error for a zero or non-finite q.
  Matrix3 toRotationMatrix() const;

 private:
  /// Storage order w, x, y, z.
  double w_;
  double x_;
  double y_;
  double z_;
};

/// The exponential of the pure quaternion (0, u): (cos|u|, sin|u| u / |u|), accurate at tiny |u|.
/// It rotates by the angle 2 |u| about u.
Quaternion expQuaternion(const Vector3& u);

/// The rotation by |omega| about omega: expQuaternion(omega / 2). Same rotation as expSO3(omega).
Quaternion quaternionFromRotationVector(const Vector3& omega);

/// Inverse of quaternionFromRotationVector: the rotation vector with |omega| in [0, pi] of q / |q|.
/// q and -q give the same result (the shortest rotation); at angle pi exactly, the component of
/// largest magnitude is returned positive. Accurate near angle 0 and near pi (w = 0).
/// Throws abdyn::Error for a zero or non-finite q.
Vector3 rotationVector(const Quaternion& q);

/// The angle in [0, pi] of the rotation taking q1 to q2 (of q1^-1 q2), treating q and -q the same.
/// Throws abdyn::Error for a zero or non-finite argument.
double angularDistance(const Quaternion& q1, const Quaternion& q2);

/// B_body(q) = [ -v^T ; w I + skew(v) ]: qdot = 1/2 B_body(q) w_body.
Eigen::Matrix<double, 4, 3> rateMatrixBody(const Quaternion& q);
/// B_world(q) = [ -v^T ; w I - skew(v) ]: qdot = 1/2 B_world(q) w_world.
Eigen::Matrix<double, 4, 3> rateMatrixWorld(const Quaternion& q);
/// w_body = 2 B_body(q)^T qdot, for unit q; qdot in (w, x, y, z) order.
Vector3 angularVelocityBodyFromRate(const Quaternion& q, const Vector4& qdot_wxyz);
/// w_world = 2 B_world(q)^T qdot, for unit q; qdot in (w, x, y, z) order.
Vector3 angularVelocityWorldFromRate(const Quaternion& q, const Vector4& qdot_wxyz);

/// Prints "Quaternion(w=..., x=..., y=..., z=...)" with the stream's precision.
std::ostream& operator<<(std::ostream& os, const Quaternion& q);

}  // namespace abdyn
