#include "abdyn/spatial/rotation.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include <Eigen/LU>
#include <Eigen/SVD>

#include "abdyn/error.hpp"
#include "spatial/passes.hpp"

namespace abdyn {

namespace {

constexpr double kPi = 3.14159265358979323846;

// Below this angle the coefficients of W^2 in Jr and Jr^-1 come from their Taylor series: the closed
// forms lose about eps / t^2 relative to cancellation, the truncated series stay below 1e-16 here.
constexpr double kSeriesAngle = 0.2;

// (1 - cos t) / t^2 from the half-angle identity 1 - cos t = 2 sin^2(t/2), free of cancellation.
double oneMinusCosOverT2(double t) {
  const double s = sinc(0.5 * t);
  return 0.5 * s * s;
}

// (t - sin t) / t^3 = sum_k (-1)^k t^(2k) / (2k + 3)!.
double tMinusSinOverT3(double t) {
  const double t2 = t * t;
  if (t < kSeriesAngle) {
    return 1.0 / 6.0 -
           t2 * (1.0 / 120.0 - t2 * (1.0 / 5040.0 - t2 * (1.0 / 362880.0 - t2 * (1.0 / 39916800.0))));
  }
  return (t - std::sin(t)) / (t2 * t);
}

// 1/t^2 - cot(t/2) / (2t) = sum_{n>=1} |B_2n| t^(2n-2) / (2n)! (B = Bernoulli numbers).
double jacobianInverseCoefficient(double t) {
  const double t2 = t * t;
  if (t < kSeriesAngle) {
    return 1.0 / 12.0 +
           t2 * (1.0 / 720.0 + t2 * (1.0 / 30240.0 + t2 * (1.0 / 1209600.0 + t2 * (1.0 / 47900160.0))));
  }
  const double h = 0.5 * t;
  return 1.0 / t2 - std::cos(h) / (2.0 * t * std::sin(h));
}

enum class RotationDefect { None, NonFinite, NotOrthonormal, WrongDeterminant };

struct RotationCheck {
  RotationDefect defect;
  double measured;  // |R^T R - I| or det R, depending on the defect
};

void requireTolerance(double tol, const char* function) {
  if (!std::isfinite(tol) || tol < 0.0) {
    std::ostringstream msg;
    msg << function << ": tol must be finite and non-negative (got " << tol << ")";
    throw InvalidArgument(msg.str());
  }
}

RotationCheck inspectRotation(const Matrix3& R, double tol) {
  if (!R.allFinite()) return {RotationDefect::NonFinite, 0.0};
  const double orthonormality = (R.transpose() * R - Matrix3::Identity()).norm();
  if (!(orthonormality <= tol)) return {RotationDefect::NotOrthonormal, orthonormality};
  const double det = R.determinant();
  if (!(std::abs(det - 1.0) <= tol)) return {RotationDefect::WrongDeterminant, det};
  return {RotationDefect::None, 0.0};
}

}  // namespace

double sinc(double x) {
  if (std::abs(x) < 1e-4) {
    const double x2 = x * x;
    return 1.0 - x2 / 6.0 * (1.0 - x2 / 20.0);
  }
  return std::sin(x) / x;
}

namespace internal {

double axisNorm(const Vector3& axis, double angle, const char* function) {
  if (!axis.allFinite() || !std::isfinite(angle)) {
    throw InvalidArgument(std::string(function) + ": axis and angle must be finite");
  }
  const double n = axis.norm();
  if (n < 1e-12) {
    std::ostringstream msg;
    msg << function << ": axis has (near) zero length " << n << ", no direction";
    throw Error(msg.str());
  }
  return n;
}

Vector3 leftJacobianSO3Times(const Vector3& phi, const Vector3& x) {
  const double t = phi.norm();
  const Vector3 phi_x = phi.cross(x);
  return x + oneMinusCosOverT2(t) * phi_x + tMinusSinOverT3(t) * phi.cross(phi_x);
}

}  // namespace internal

Matrix3 rotationFromAxisAngle(const Vector3& axis, double angle) {
  return expSO3(axis * (angle / internal::axisNorm(axis, angle, "abdyn::rotationFromAxisAngle")));
}

Matrix3 expSO3(const Vector3& omega) {
  const double t2 = omega.squaredNorm();
  const double t = std::sqrt(t2);
  const double a = sinc(t);
  const double b = oneMinusCosOverT2(t);
  // W^2 = omega omega^T - t^2 I, so R = (1 - b t^2) I + a W + b omega omega^T.
  Matrix3 R = b * omega * omega.transpose() + a * skew(omega);
  R.diagonal().array() += 1.0 - b * t2;
  return R;
}

Vector3 logSO3(const Matrix3& R) {
  const Vector3 sin_axis = unskew(R);  // sin(t) * axis
  const double s = sin_axis.norm();
  const double c = 0.5 * (R.trace() - 1.0);  // cos(t)
  const double t = std::atan2(s, c);
  if (c > -0.5) {
    // t < 2 pi / 3: sin(t) > 0.86, so the skew part determines the axis to rounding. atan2(s, c) / s
    // has no cancellation; below s = 1e-20 it equals 1 / c in double precision.
    return (s > 1e-20 ? t / s : 1.0 / c) * sin_axis;
  }
  // Near pi the skew part vanishes; the axis comes from the symmetric part instead:
  // (R + R^T) / 2 - c I = (1 - c) n n^T, whose column i is (1 - c) n_i n. The column of the largest
  // diagonal entry (largest |n_i|) is the best conditioned; normalised it gives n with n_i >= 0.
  Matrix3 P = 0.5 * (R + R.transpose());
  P.diagonal().array() -= c;
  Eigen::Index i = 0;
  P.diagonal().maxCoeff(&i);
  Vector3 n = P.col(i).normalized();
  // The sign of the skew part (sin(t) n with sin(t) > 0) chooses between n and -n; at exactly pi it is
  // zero and n keeps n_i >= 0.
  if (n.dot(sin_axis) < 0.0) n = -n;
  return t * n;
}

AxisAngle axisAngleFromRotation(const Matrix3& R) {
  const Vector3 omega = logSO3(R);
  const double norm = omega.norm();
  if (norm == 0.0) return {Vector3::UnitX(), 0.0};
  return {omega / norm, std::min(norm, kPi)};
}

bool isRotation(const Matrix3& R, double tol) {
  requireTolerance(tol, "abdyn::isRotation");
  return inspectRotation(R, tol).defect == RotationDefect::None;
}

void checkRotation(const Matrix3& R, const char* what, double tol) {
  requireTolerance(tol, "abdyn::checkRotation");
  const RotationCheck check = inspectRotation(R, tol);
  if (check.defect == RotationDefect::None) return;
  std::ostringstream msg;
  msg << "abdyn::checkRotation: " << (what ? what : "rotation") << ": ";
  switch (check.defect) {
    case RotationDefect::NonFinite:
      msg << "matrix has non-finite entries";
      break;
    case RotationDefect::NotOrthonormal:
      msg << "matrix is not orthonormal (|R^T R - I| = " << check.measured << " > tol " << tol << ")";
      break;
    case RotationDefect::WrongDeterminant:
      msg << "det R = " << check.measured << " instead of +1"
          << (check.measured < 0.0 ? " (a reflection)" : "");
      break;
    case RotationDefect::None:
      break;
  }
  throw Error(msg.str());
}

Matrix3 rotX(double angle) {
  const double c = std::cos(angle), s = std::sin(angle);
  Matrix3 R;
  R << 1.0, 0.0, 0.0,
       0.0, c, -s,
       0.0, s, c;
  return R;
}

Matrix3 rotY(double angle) {
  const double c = std::cos(angle), s = std::sin(angle);
  Matrix3 R;
  R << c, 0.0, s,
       0.0, 1.0, 0.0,
       -s, 0.0, c;
  return R;
}

Matrix3 rotZ(double angle) {
  const double c = std::cos(angle), s = std::sin(angle);
  Matrix3 R;
  R << c, -s, 0.0,
       s, c, 0.0,
       0.0, 0.0, 1.0;
  return R;
}

Matrix3 orthonormalize(const Matrix3& M) {
  if (!M.allFinite()) throw InvalidArgument("abdyn::orthonormalize: M has non-finite entries");
  Eigen::JacobiSVD<Matrix3> svd(M, Eigen::ComputeFullU | Eigen::ComputeFullV);
  Matrix3 U = svd.matrixU();
  const Matrix3& V = svd.matrixV();
  // Singular values come sorted in decreasing order; if U V^T is a reflection, flipping the direction
  // of the smallest one gives the nearest proper rotation.
  if ((U * V.transpose()).determinant() < 0.0) U.col(2) = -U.col(2);
  return U * V.transpose();
}

Matrix3 rightJacobianSO3(const Vector3& phi) {
  const double t2 = phi.squaredNorm();
  const double t = std::sqrt(t2);
  const double b = oneMinusCosOverT2(t);
  const double c = tMinusSinOverT3(t);
  // I - b W + c W^2 with W^2 = phi phi^T - t^2 I.
  Matrix3 J = c * phi * phi.transpose() - b * skew(phi);
  J.diagonal().array() += 1.0 - c * t2;
  return J;
}

Matrix3 rightJacobianInverseSO3(const Vector3& phi) {
  const double t2 = phi.squaredNorm();
  const double t = std::sqrt(t2);
  const double d = jacobianInverseCoefficient(t);
  Matrix3 J = d * phi * phi.transpose() + 0.5 * skew(phi);
  J.diagonal().array() += 1.0 - d * t2;
  return J;
}

}  // namespace abdyn
