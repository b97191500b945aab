#include "abdyn/spatial/euler.hpp"

#include <cmath>

#include "abdyn/error.hpp"

namespace abdyn {

namespace {

// cos(pitch) below which roll is set to 0. Replacing roll by 0 changes the matrix by at most
// 2 sqrt(2) cos(pitch), so the reconstruction stays within a few 1e-15; a matrix built at pitch
// = +-pi/2 in double precision has cos(pitch) ~ 6e-17.
constexpr double kGimbalLockCos = 1e-15;

// Moving XYZ (a) = Rx(a0) Ry(a1) Rz(a2) = (Rz(-a2) Ry(-a1) Rx(-a0))^T = rpyToMatrix(-a)^T, and
// Fixed ZYX (a0, a1, a2) = Moving XYZ (a2, a1, a0): both reduce to rpy of the transpose.
Vector3 reversed(const Vector3& a) { return Vector3(a(2), a(1), a(0)); }

}  // namespace

Matrix3 rpyToMatrix(const Vector3& rpy) {
  if (!rpy.allFinite()) throw InvalidArgument("abdyn::rpyToMatrix: rpy has non-finite entries");
  const double cr = std::cos(rpy(0)), sr = std::sin(rpy(0));
  const double cp = std::cos(rpy(1)), sp = std::sin(rpy(1));
  const double cy = std::cos(rpy(2)), sy = std::sin(rpy(2));
  // Rz(yaw) Ry(pitch) Rx(roll), multiplied out.
  Matrix3 R;
  R << cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr,
       sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr,
       -sp, cp * sr, cp * cr;
  return R;
}

Vector3 matrixToRpy(const Matrix3& R) {
  if (!R.allFinite()) throw InvalidArgument("abdyn::matrixToRpy: R has non-finite entries");
  // Row 2 of R is (-sin p, cos p sin r, cos p cos r): it gives roll and pitch with cos p >= 0.
  const double cp = std::hypot(R(2, 1), R(2, 2));
  const double roll = cp < kGimbalLockCos ? 0.0 : std::atan2(R(2, 1), R(2, 2));
  const double pitch = std::atan2(-R(2, 0), cp);
  // R Rx(-roll) = Rz(yaw) Ry(pitch) has column 1 = (-sin yaw, cos yaw, 0) whatever the pitch, so yaw
  // stays well defined (and consistent with the chosen roll) at gimbal lock.
  const double cr = std::cos(roll), sr = std::sin(roll);
  const double yaw = std::atan2(R(0, 2) * sr - R(0, 1) * cr, R(1, 1) * cr - R(1, 2) * sr);
  return Vector3(roll, pitch, yaw);
}

Matrix3 eulerToMatrix(const Vector3& angles, EulerSequence sequence, EulerAxes axes) {
  if (!angles.allFinite()) throw InvalidArgument("abdyn::eulerToMatrix: angles has non-finite entries");
  const bool fixed = axes == EulerAxes::Fixed;
  if (sequence == EulerSequence::XYZ) {
    return fixed ? rpyToMatrix(angles) : Matrix3(rpyToMatrix(-angles).transpose());
  }
  return fixed ? Matrix3(rpyToMatrix(-reversed(angles)).transpose()) : rpyToMatrix(reversed(angles));
}

Vector3 matrixToEuler(const Matrix3& R, EulerSequence sequence, EulerAxes axes) {
  if (!R.allFinite()) throw InvalidArgument("abdyn::matrixToEuler: R has non-finite entries");
  const bool fixed = axes == EulerAxes::Fixed;
  if (sequence == EulerSequence::XYZ) {
    return fixed ? matrixToRpy(R) : Vector3(-matrixToRpy(R.transpose()));
  }
  return fixed ? Vector3(-reversed(matrixToRpy(R.transpose()))) : reversed(matrixToRpy(R));
}

}  // namespace abdyn
