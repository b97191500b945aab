#include "abdyn/spatial/quaternion.hpp"

#include <cmath>
#include <limits>
#include <sstream>

#include "abdyn/error.hpp"
#include "abdyn/spatial/rotation.hpp"
#include "spatial/passes.hpp"

namespace abdyn {

namespace {

// |q|^2 of a quaternion that can be divided by; throws abdyn::Error naming `function` otherwise.
// The lower bound keeps 1 / |q|^2 finite.
double usableSquaredNorm(const Quaternion& q, const char* function) {
  const double n2 = q.squaredNorm();
  if (std::isfinite(n2) && n2 >= std::numeric_limits<double>::min()) return n2;
  std::ostringstream msg;
  msg << function << ": " << q << (std::isfinite(n2) ? " has zero norm" : " has a non-finite norm");
  throw Error(msg.str());
}

}  // namespace

Quaternion Quaternion::fromAxisAngle(const Vector3& axis, double angle) {
  const double n = internal::axisNorm(axis, angle, "abdyn::Quaternion::fromAxisAngle");
  const Vector3 v = (std::sin(0.5 * angle) / n) * axis;
  return Quaternion(std::cos(0.5 * angle), v.x(), v.y(), v.z());
}

Quaternion Quaternion::fromRotationMatrix(const Matrix3& R) {
  if (!R.allFinite()) {
    throw InvalidArgument("abdyn::Quaternion::fromRotationMatrix: R has non-finite entries");
  }
  // Shepperd's method. With R written in q (see toRotationMatrix), the four numbers
  //   1 + tr R = 4 w^2,  1 + 2 R_ii - tr R = 4 (x^2, y^2, z^2)_i
  // sum to 4, so the largest is >= 1. Its square root gives one component of magnitude >= 1/2; the
  // others follow from the off-diagonal sums and differences divided by it, with no cancellation:
  //   R21 - R12 = 4wx, R02 - R20 = 4wy, R10 - R01 = 4wz, R10 + R01 = 4xy, R02 + R20 = 4xz, R21 + R12 = 4yz.
  const double tr = R.trace();
  const Vector4 candidates(1.0 + tr, 1.0 + 2.0 * R(0, 0) - tr, 1.0 + 2.0 * R(1, 1) - tr,
                           1.0 + 2.0 * R(2, 2) - tr);
  Eigen::Index k = 0;
  candidates.maxCoeff(&k);
  const double big = 0.5 * std::sqrt(candidates(k));
  const double f = 0.25 / big;
  Quaternion q;
  switch (k) {
    case 0:
      q = Quaternion(big, f * (R(2, 1) - R(1, 2)), f * (R(0, 2) - R(2, 0)), f * (R(1, 0) - R(0, 1)));
      break;
    case 1:
      q = Quaternion(f * (R(2, 1) - R(1, 2)), big, f * (R(1, 0) + R(0, 1)), f * (R(0, 2) + R(2, 0)));
      break;
    case 2:
      q = Quaternion(f * (R(0, 2) - R(2, 0)), f * (R(1, 0) + R(0, 1)), big, f * (R(2, 1) + R(1, 2)));
      break;
    default:
      q = Quaternion(f * (R(1, 0) - R(0, 1)), f * (R(0, 2) + R(2, 0)), f * (R(2, 1) + R(1, 2)), big);
      break;
  }
  // Normalising removes the first-order effect of a slightly non-orthonormal R.
  const double s = (q.w() < 0.0 ? -1.0 : 1.0) / q.norm();
  return Quaternion(s * q.w(), s * q.x(), s * q.y(), s * q.z());
}

Quaternion Quaternion::inverse() const {
  const double inv = 1.0 / usableSquaredNorm(*this, "abdyn::Quaternion::inverse");
  return Quaternion(inv * w_, -inv * x_, -inv * y_, -inv * z_);
}

Quaternion Quaternion::normalized() const {
  const double inv = 1.0 / std::sqrt(usableSquaredNorm(*this, "abdyn::Quaternion::normalized"));
  return Quaternion(inv * w_, inv * x_, inv * y_, inv * z_);
}

bool Quaternion::isUnit(double tol) const {
  if (!std::isfinite(tol) || tol < 0.0) {
    std::ostringstream msg;
    msg << "abdyn::Quaternion::isUnit: tol must be finite and non-negative (got " << tol << ")";
    throw InvalidArgument(msg.str());
  }
  return std::abs(norm() - 1.0) <= tol;
}

Vector3 Quaternion::rotate(const Vector3& v) const {
  // q (0, v) q* = (0, |q|^2 v + 2 w u x v + 2 u x (u x v)) with u = vec(); divided by |q|^2 for q^-1.
  const double s = 2.0 / usableSquaredNorm(*this, "abdyn::Quaternion::rotate");
  const Vector3 u = vec();
  const Vector3 uv = u.cross(v);
  return v + s * (w_ * uv + u.cross(uv));
}

Matrix3 Quaternion::toRotationMatrix() const {
  // The matrix of rotate(): I + s (w skew(u) + skew(u)^2), s = 2 / |q|^2, written out.
  const double s = 2.0 / usableSquaredNorm(*this, "abdyn::Quaternion::toRotationMatrix");
  const double xx = s * x_ * x_, yy = s * y_ * y_, zz = s * z_ * z_;
  const double xy = s * x_ * y_, xz = s * x_ * z_, yz = s * y_ * z_;
  const double wx = s * w_ * x_, wy = s * w_ * y_, wz = s * w_ * z_;
  Matrix3 R;
  R << 1.0 - yy - zz, xy - wz, xz + wy,
       xy + wz, 1.0 - xx - zz, yz - wx,
       xz - wy, yz + wx, 1.0 - xx - yy;
  return R;
}

Quaternion expQuaternion(const Vector3& u) {
  const double t = u.norm();
  const Vector3 v = sinc(t) * u;
  return Quaternion(std::cos(t), v.x(), v.y(), v.z());
}

Quaternion quaternionFromRotationVector(const Vector3& omega) { return expQuaternion(0.5 * omega); }

Vector3 rotationVector(const Quaternion& q) {
  usableSquaredNorm(q, "abdyn::rotationVector");
  double w = q.w();
  Vector3 v = q.vec();
  if (w < 0.0) {
    // -q is the same rotation; w >= 0 selects the half-angle in [0, pi/2], the shortest rotation.
    w = -w;
    v = -v;
  } else if (w == 0.0) {
    Eigen::Index i = 0;
    v.cwiseAbs().maxCoeff(&i);
    if (v(i) < 0.0) v = -v;
  }
  const double s = v.norm();
  if (s < 1e-6 * w) {
    // Half-angle atan(r) with r = s / w: atan(r) / s = (1 - r^2 / 3 + r^4 / 5) / w, r^4 < 1e-24.
    const double r2 = (s / w) * (s / w);
    return (2.0 / w * (1.0 - r2 / 3.0)) * v;
  }
  return (2.0 * std::atan2(s, w) / s) * v;
}

double angularDistance(const Quaternion& q1, const Quaternion& q2) {
  usableSquaredNorm(q1, "abdyn::angularDistance (q1)");
  usableSquaredNorm(q2, "abdyn::angularDistance (q2)");
  const Quaternion d = q1.conjugate() * q2;
  return 2.0 * std::atan2(d.vec().norm(), std::abs(d.w()));
}

Eigen::Matrix<double, 4, 3> rateMatrixBody(const Quaternion& q) {
  Eigen::Matrix<double, 4, 3> B;
  B.row(0) = -q.vec().transpose();
  B.bottomRows<3>() = q.w() * Matrix3::Identity() + skew(q.vec());
  return B;
}

Eigen::Matrix<double, 4, 3> rateMatrixWorld(const Quaternion& q) {
  Eigen::Matrix<double, 4, 3> B;
  B.row(0) = -q.vec().transpose();
  B.bottomRows<3>() = q.w() * Matrix3::Identity() - skew(q.vec());
  return B;
}

Vector3 angularVelocityBodyFromRate(const Quaternion& q, const Vector4& qdot_wxyz) {
  return 2.0 * rateMatrixBody(q).transpose() * qdot_wxyz;
}

Vector3 angularVelocityWorldFromRate(const Quaternion& q, const Vector4& qdot_wxyz) {
  return 2.0 * rateMatrixWorld(q).transpose() * qdot_wxyz;
}

std::ostream& operator<<(std::ostream& os, const Quaternion& q) {
  return os << "Quaternion(w=" << q.w() << ", x=" << q.x() << ", y=" << q.y() << ", z=" << q.z() << ")";
}

}  // namespace abdyn
