#define BOOST_TEST_MODULE rotation
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/LU>

#include "abdyn/error.hpp"
#include "abdyn/spatial/rotation.hpp"
#include "test_helpers.hpp"

using namespace abdyn;
using namespace abdyn::test;

namespace {

constexpr double kPi = 3.14159265358979323846;

// exp(W) summed as the power series sum_k W^k / k!, 30 terms, independent of Rodrigues' formula.
// For |W| <= pi the omitted terms are below pi^30 / 30! ~ 3e-18.
Matrix3 seriesExp(const Matrix3& W) {
  Matrix3 sum = Matrix3::Identity();
  Matrix3 term = Matrix3::Identity();
  for (int k = 1; k < 30; ++k) {
    term = term * W / static_cast<double>(k);
    sum += term;
  }
  return sum;
}

// Right Jacobian as its series sum_k (-W)^k / (k + 1)! (the integral of exp(-s W) over s in [0, 1]).
Matrix3 seriesRightJacobian(const Vector3& phi) {
  const Matrix3 W = -skew(phi);
  Matrix3 sum = Matrix3::Identity();
  Matrix3 term = Matrix3::Identity();
  for (int k = 1; k < 30; ++k) {
    term = term * W / static_cast<double>(k + 1);
    sum += term;
  }
  return sum;
}

Vector3 randomUnit(std::mt19937& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  return Vector3(n(rng), n(rng), n(rng)).normalized();
}

// Predicate for BOOST_CHECK_EXCEPTION: the message contains every given fragment.
struct MessageHas {
  std::vector<std::string> fragments;
  template <class E>
  bool operator()(const E& e) const {
    const std::string what = e.what();
    for (const auto& f : fragments) {
      if (what.find(f) == std::string::npos) {
        BOOST_TEST_MESSAGE("message \"" << what << "\" lacks \"" << f << "\"");
        return false;
      }
    }
    return true;
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(sinc_matches_definition_and_limit) {
  BOOST_TEST(sinc(0.0) == 1.0);
  // Across the series threshold 1e-4 both branches agree with sin(x)/x to rounding (rel 1e-15).
  for (double x : {1e-8, 9.999e-5, 1.0001e-4, 1e-2, 1.0, 3.0, -2.5}) {
    BOOST_TEST(std::abs(sinc(x) - std::sin(x) / x) <= 1e-15 * std::abs(std::sin(x) / x), "x = " << x);
  }
}

BOOST_AUTO_TEST_CASE(rodrigues_matches_matrix_exponential_series) {
  std::mt19937 rng(20240101);
  std::uniform_real_distribution<double> angle(-kPi, kPi);
  for (int trial = 0; trial < 200; ++trial) {
    const Vector3 axis = randomUnit(rng);
    const double a = angle(rng);
    const Matrix3 expected = seriesExp(skew(a * axis));
    // Relative 1e-14: both sides are sums of O(1) terms in double precision.
    ABDYN_CHECK_REL(rotationFromAxisAngle(axis, a), expected, 1e-14);
    ABDYN_CHECK_REL(expSO3(a * axis), expected, 1e-14);
    // A non-unit axis is normalised first.
    ABDYN_CHECK_REL(rotationFromAxisAngle(3.7 * axis, a), expected, 1e-14);
  }
  // Tiny angles, where the closed form would divide by ~0: the series is I + W + W^2/2 to rounding.
  for (double a : {0.0, 1e-300, 1e-12, 1e-8, 1e-5, 1e-3}) {
    const Vector3 omega = a * Vector3(0.6, -0.8, 0.0);
    ABDYN_CHECK_REL(expSO3(omega), seriesExp(skew(omega)), 1e-16);
  }
}

BOOST_AUTO_TEST_CASE(axis_angle_rejects_bad_axes) {
  BOOST_CHECK_EXCEPTION(rotationFromAxisAngle(Vector3::Zero(), 1.0), Error,
                        (MessageHas{{"abdyn::rotationFromAxisAngle", "zero length"}}));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  BOOST_CHECK_EXCEPTION(rotationFromAxisAngle(Vector3(nan, 0.0, 1.0), 1.0), InvalidArgument,
                        (MessageHas{{"abdyn::rotationFromAxisAngle", "finite"}}));
  BOOST_CHECK_EXCEPTION(rotationFromAxisAngle(Vector3::UnitZ(), nan), InvalidArgument,
                        (MessageHas{{"abdyn::rotationFromAxisAngle", "finite"}}));
}

BOOST_AUTO_TEST_CASE(exp_log_round_trips) {
  std::mt19937 rng(7);
  // log(exp(omega)) == omega for |omega| < pi, including the special angles. Tolerance: relative
  // 2e-15 of |omega| (observed <= 5e-16), exact at angle 0; near pi the angle stays accurate because
  // it comes from atan2 and the axis from the symmetric part.
  for (double a : {0.0, 1e-300, 1e-12, 1e-6, 0.3, 2.0, 2.0944, 2.1, kPi - 1e-6, kPi - 1e-9}) {
    for (int trial = 0; trial < 50; ++trial) {
      const Vector3 omega = a * randomUnit(rng);
      const Vector3 back = logSO3(expSO3(omega));
      BOOST_TEST((back - omega).norm() <= 2e-15 * a, "angle " << a << ": |log(exp(w)) - w| = "
                                                               << (back - omega).norm());
    }
  }
  // exp(log(R)) == R for random rotations (absolute 1e-14 on O(1) entries).
  for (int trial = 0; trial < 500; ++trial) {
    const Matrix3 R = randomRotation(rng);
    const Vector3 omega = logSO3(R);
    BOOST_TEST(omega.norm() <= kPi);
    BOOST_TEST((expSO3(omega) - R).norm() <= 1e-14);
  }
}

BOOST_AUTO_TEST_CASE(log_at_exactly_pi) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    const Vector3 n = randomUnit(rng);
    // Two routes to a half-turn: the exact symmetric 2 n n^T - I, and expSO3(pi n) whose skew part is
    // sin(pi) ~ 1.2e-16 in double.
    const Matrix3 exact = 2.0 * n * n.transpose() - Matrix3::Identity();
    for (const Matrix3& R : {exact, expSO3(kPi * n)}) {
      const Vector3 omega = logSO3(R);
      // Angle pi to 1e-14 (relative), axis +-n to 1e-14.
      BOOST_TEST(std::abs(omega.norm() - kPi) <= 1e-14 * kPi);
      const Vector3 axis = omega.normalized();
      BOOST_TEST(std::min((axis - n).norm(), (axis + n).norm()) <= 1e-14);
      const AxisAngle aa = axisAngleFromRotation(R);
      BOOST_TEST(aa.angle <= kPi);
      BOOST_TEST(std::abs(aa.angle - kPi) <= 1e-14 * kPi);
      BOOST_TEST(std::min((aa.axis - n).norm(), (aa.axis + n).norm()) <= 1e-14);
    }
    // For the exactly symmetric matrix the documented choice holds: the largest |component| is positive.
    const Vector3 omega = logSO3(exact);
    Eigen::Index i = 0;
    omega.cwiseAbs().maxCoeff(&i);
    BOOST_TEST(omega(i) > 0.0);
  }
  // Axis-aligned half turns: diag(1, -1, -1) is pi about x, exactly.
  const Vector3 omega = logSO3(Vector3(1.0, -1.0, -1.0).asDiagonal().toDenseMatrix());
  BOOST_TEST((omega - Vector3(kPi, 0.0, 0.0)).norm() <= 1e-15);
}

BOOST_AUTO_TEST_CASE(axis_angle_from_rotation) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> angle(0.0, kPi);
  for (int trial = 0; trial < 200; ++trial) {
    const Vector3 n = randomUnit(rng);
    const double a = angle(rng);
    const AxisAngle aa = axisAngleFromRotation(rotationFromAxisAngle(n, a));
    // Angle to 1e-13 absolute, axis to 1e-12 (the axis conditioning is 1/sin(angle) only near 0 and pi,
    // which uniform sampling hits rarely).
    BOOST_TEST(std::abs(aa.angle - a) <= 1e-13);
    BOOST_TEST((aa.axis - n).norm() <= 1e-12, "angle " << a);
  }
  const AxisAngle zero = axisAngleFromRotation(Matrix3::Identity());
  BOOST_TEST(zero.angle == 0.0);
  BOOST_TEST(zero.axis.norm() == 1.0);
}

BOOST_AUTO_TEST_CASE(is_rotation_and_check_rotation) {
  std::mt19937 rng(5);
  const Matrix3 R = randomRotation(rng);
  BOOST_TEST(isRotation(R));
  BOOST_CHECK_NO_THROW(checkRotation(R, "R"));

  // Scaled by 1.01: |R^T R - I| = sqrt(3) (1.01^2 - 1) = 0.0348, det R - 1 = 0.0303.
  const Matrix3 scaled = 1.01 * R;
  BOOST_TEST(!isRotation(scaled));
  BOOST_CHECK_EXCEPTION(
      checkRotation(scaled, "joint 'elbow' origin"), Error,
      (MessageHas{{"abdyn::checkRotation", "joint 'elbow' origin", "not orthonormal", "0.0348"}}));
  BOOST_TEST(!isRotation(scaled, 0.034));
  BOOST_TEST(isRotation(scaled, 0.035));

  // A reflection: orthonormal but det -1.
  Matrix3 reflection = R;
  reflection.col(0) = -reflection.col(0);
  BOOST_TEST(!isRotation(reflection));
  BOOST_CHECK_EXCEPTION(checkRotation(reflection, "mirror"), Error,
                        (MessageHas{{"abdyn::checkRotation", "mirror", "det R = -1", "reflection"}}));

  Matrix3 with_nan = R;
  with_nan(1, 2) = std::numeric_limits<double>::quiet_NaN();
  BOOST_TEST(!isRotation(with_nan));
  BOOST_CHECK_EXCEPTION(checkRotation(with_nan, "nan case"), Error,
                        (MessageHas{{"abdyn::checkRotation", "nan case", "non-finite"}}));
  Matrix3 with_inf = R;
  with_inf(0, 0) = std::numeric_limits<double>::infinity();
  BOOST_TEST(!isRotation(with_inf));

  // A rounding-level perturbation passes the default tolerance 1e-9, a 1e-6 one does not.
  BOOST_TEST(isRotation(R + 1e-12 * Matrix3::Ones()));
  BOOST_TEST(!isRotation(R + 1e-6 * Matrix3::Ones()));

  BOOST_CHECK_EXCEPTION(isRotation(R, -1.0), InvalidArgument, (MessageHas{{"abdyn::isRotation", "tol"}}));
  BOOST_CHECK_EXCEPTION(checkRotation(R, "R", std::numeric_limits<double>::quiet_NaN()), InvalidArgument,
                        (MessageHas{{"abdyn::checkRotation", "tol"}}));
}

BOOST_AUTO_TEST_CASE(elementary_rotations) {
  std::mt19937 rng(13);
  std::uniform_real_distribution<double> angle(-4.0, 4.0);
  for (int trial = 0; trial < 50; ++trial) {
    const double a = angle(rng);
    // Entries are O(1): absolute 1e-15 (Frobenius).
    BOOST_TEST((rotX(a) - rotationFromAxisAngle(Vector3::UnitX(), a)).norm() <= 1e-15);
    BOOST_TEST((rotY(a) - rotationFromAxisAngle(Vector3::UnitY(), a)).norm() <= 1e-15);
    BOOST_TEST((rotZ(a) - rotationFromAxisAngle(Vector3::UnitZ(), a)).norm() <= 1e-15);
  }
  // Active: rotZ(a) maps x to (cos a, sin a, 0), rotX(a) maps y to (0, cos a, sin a), rotY(a) maps z
  // to (sin a, 0, cos a) (exact: the entries are the computed cos and sin).
  const double a = 0.7;
  BOOST_TEST((rotZ(a) * Vector3::UnitX() - Vector3(std::cos(a), std::sin(a), 0.0)).norm() == 0.0);
  BOOST_TEST((rotX(a) * Vector3::UnitY() - Vector3(0.0, std::cos(a), std::sin(a))).norm() == 0.0);
  BOOST_TEST((rotY(a) * Vector3::UnitZ() - Vector3(std::sin(a), 0.0, std::cos(a))).norm() == 0.0);
}

BOOST_AUTO_TEST_CASE(orthonormalize_repairs_perturbed_rotations) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> noise(-1e-3, 1e-3);
  for (int trial = 0; trial < 100; ++trial) {
    const Matrix3 R = randomRotation(rng);
    Matrix3 perturbed = R;
    for (int k = 0; k < 9; ++k) perturbed(k) += noise(rng);
    const Matrix3 fixed = orthonormalize(perturbed);
    BOOST_TEST(isRotation(fixed, 1e-14));
    // Within the perturbation size (|noise| <= 3e-3 in Frobenius norm).
    BOOST_TEST((fixed - R).norm() <= 3e-3);
    // The nearest rotation: no rotation nearby (tiny rotations of it) is closer to `perturbed`.
    const double d = (fixed - perturbed).norm();
    for (int k = 0; k < 3; ++k) {
      for (double s : {-1e-4, 1e-4}) {
        BOOST_TEST((fixed * expSO3(s * Vector3::Unit(k)) - perturbed).norm() > d);
      }
    }
    // A rotation is its own nearest rotation (Frobenius 4e-15, a few ulps per entry).
    BOOST_TEST((orthonormalize(R) - R).norm() <= 4e-15);
  }
  // A matrix with det < 0 maps to a proper rotation, not to the nearest orthogonal reflection.
  const Matrix3 mirror = Vector3(1.0, 1.0, -1.0).asDiagonal().toDenseMatrix() * randomRotation(rng);
  const Matrix3 fixed = orthonormalize(mirror);
  BOOST_TEST(isRotation(fixed, 1e-14));
  BOOST_CHECK_THROW(orthonormalize(Matrix3::Constant(std::numeric_limits<double>::quiet_NaN())),
                    InvalidArgument);
}

// The identity tested: exp(phi + d) = exp(phi) exp(Jr(phi) d) + O(|d|^2), i.e. column k of Jr(phi) is the
// derivative of log(exp(phi)^T exp(phi + s e_k)) at s = 0. Likewise column k of Jr^-1(phi) is the
// derivative of log(exp(phi) exp(s e_k)) at s = 0 (for |phi| < pi, where log is smooth).
BOOST_AUTO_TEST_CASE(right_jacobian_against_finite_differences) {
  std::mt19937 rng(19);
  std::uniform_real_distribution<double> angle(0.0, 3.0);
  const double s = 1e-5;  // central difference: truncation ~s^2 = 1e-10, rounding ~1e-16 / s = 1e-11
  for (int trial = 0; trial < 100; ++trial) {
    const Vector3 phi = angle(rng) * randomUnit(rng);
    const Matrix3 R = expSO3(phi);
    Matrix3 jr_fd, jrinv_fd;
    for (int k = 0; k < 3; ++k) {
      const Vector3 d = s * Vector3::Unit(k);
      jr_fd.col(k) =
          (logSO3(R.transpose() * expSO3(phi + d)) - logSO3(R.transpose() * expSO3(phi - d))) / (2 * s);
      jrinv_fd.col(k) = (logSO3(R * expSO3(d)) - logSO3(R * expSO3(-d))) / (2 * s);
    }
    // Absolute 1e-9 on O(1) entries (Jr^-1 grows to ~3 near |phi| = 3); observed <= 6e-11.
    BOOST_TEST((rightJacobianSO3(phi) - jr_fd).norm() <= 1e-9, "|phi| = " << phi.norm());
    BOOST_TEST((rightJacobianInverseSO3(phi) - jrinv_fd).norm() <= 1e-9, "|phi| = " << phi.norm());
  }
}

BOOST_AUTO_TEST_CASE(right_jacobian_series_and_inverse) {
  std::mt19937 rng(23);
  // Against the power series, on both sides of the Taylor thresholds (1e-4 in sinc, 0.2 in the W^2
  // coefficients) and at tiny angles: absolute 1e-15 on entries of size ~1.
  for (double a : {0.0, 1e-300, 1e-12, 1e-6, 9.99e-5, 1.001e-4, 0.05, 0.1999, 0.2001, 0.5, 1.5, 3.0, kPi}) {
    const Vector3 phi = a * randomUnit(rng);
    BOOST_TEST((rightJacobianSO3(phi) - seriesRightJacobian(phi)).norm() <= 1e-15, "angle " << a);
    // Jr Jr^-1 = I (1e-14; Jr^-1 has norm up to ~3 at angle pi).
    BOOST_TEST((rightJacobianSO3(phi) * rightJacobianInverseSO3(phi) - Matrix3::Identity()).norm() <= 1e-14,
               "angle " << a);
  }
  // Left Jacobian Jl(phi) = Jr(-phi) = Jr(phi)^T, and Jr(phi) phi = phi (exact up to 1e-15).
  const Vector3 phi(0.4, -1.1, 0.7);
  BOOST_TEST((rightJacobianSO3(-phi) - rightJacobianSO3(phi).transpose()).norm() <= 1e-15);
  BOOST_TEST((rightJacobianSO3(phi) * phi - phi).norm() <= 1e-15);
  BOOST_TEST((rightJacobianInverseSO3(phi) * phi - phi).norm() <= 1e-15);
}
