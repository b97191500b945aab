#define BOOST_TEST_MODULE euler_angles
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <limits>

#include "abdyn/error.hpp"
#include "abdyn/spatial/euler.hpp"
#include "abdyn/spatial/rotation.hpp"
#include "test_helpers.hpp"

using namespace abdyn;
using namespace abdyn::test;

namespace {

constexpr double kPi = 3.14159265358979323846;

const EulerSequence kSequences[] = {EulerSequence::XYZ, EulerSequence::ZYX};
const EulerAxes kAxes[] = {EulerAxes::Fixed, EulerAxes::Moving};

const char* name(EulerSequence s, EulerAxes a) {
  if (s == EulerSequence::XYZ) return a == EulerAxes::Fixed ? "Fixed XYZ" : "Moving XYZ";
  return a == EulerAxes::Fixed ? "Fixed ZYX" : "Moving ZYX";
}

// The definition, built step by step: each angle in the sequence's order, about the parent's fixed
// axis or about the current body axis (the fixed axis carried along by the rotation so far).
Matrix3 composeStepByStep(const Vector3& angles, EulerSequence s, EulerAxes a) {
  const int order[3] = {s == EulerSequence::XYZ ? 0 : 2, 1, s == EulerSequence::XYZ ? 2 : 0};
  Matrix3 R = Matrix3::Identity();
  for (int k = 0; k < 3; ++k) {
    const Vector3 fixed_axis = Vector3::Unit(order[k]);
    const Vector3 axis = a == EulerAxes::Fixed ? fixed_axis : Vector3(R * fixed_axis);
    R = rotationFromAxisAngle(axis, angles(k)) * R;
  }
  return R;
}

// Random angles away from gimbal lock: middle in [-pi/2 + 0.01, pi/2 - 0.01], outer in (-pi, pi).
Vector3 randomAngles(std::mt19937& rng) {
  std::uniform_real_distribution<double> outer(-kPi, kPi), middle(-kPi / 2 + 0.01, kPi / 2 - 0.01);
  return Vector3(outer(rng), middle(rng), outer(rng));
}

}  // namespace

BOOST_AUTO_TEST_CASE(rpy_is_urdf_convention) {
  std::mt19937 rng(201);
  for (int trial = 0; trial < 200; ++trial) {
    const Vector3 rpy = randomAngles(rng);
    // R = Rz(yaw) Ry(pitch) Rx(roll), absolute 1e-15 on entries <= 1.
    BOOST_TEST((rpyToMatrix(rpy) - rotZ(rpy(2)) * rotY(rpy(1)) * rotX(rpy(0))).norm() <= 1e-15);
  }
  // Each angle alone is the elementary rotation (exact: same cos and sin).
  BOOST_TEST((rpyToMatrix(Vector3(0.3, 0, 0)) - rotX(0.3)).norm() == 0.0);
  BOOST_TEST((rpyToMatrix(Vector3(0, 0.3, 0)) - rotY(0.3)).norm() == 0.0);
  BOOST_TEST((rpyToMatrix(Vector3(0, 0, 0.3)) - rotZ(0.3)).norm() == 0.0);
  BOOST_CHECK_THROW(rpyToMatrix(Vector3(0, std::numeric_limits<double>::quiet_NaN(), 0)), InvalidArgument);
  BOOST_CHECK_THROW(matrixToRpy(Matrix3::Constant(std::numeric_limits<double>::infinity())), InvalidArgument);
}

BOOST_AUTO_TEST_CASE(sequences_match_their_definition) {
  std::mt19937 rng(202);
  for (int trial = 0; trial < 100; ++trial) {
    const Vector3 a = randomAngles(rng);
    // Written-out products (absolute 1e-15) and the step-by-step construction (1e-14).
    BOOST_TEST((eulerToMatrix(a, EulerSequence::XYZ, EulerAxes::Fixed) - rotZ(a(2)) * rotY(a(1)) * rotX(a(0)))
                   .norm() <= 1e-15);
    BOOST_TEST(
        (eulerToMatrix(a, EulerSequence::XYZ, EulerAxes::Moving) - rotX(a(0)) * rotY(a(1)) * rotZ(a(2)))
            .norm() <= 1e-15);
    BOOST_TEST((eulerToMatrix(a, EulerSequence::ZYX, EulerAxes::Fixed) - rotX(a(2)) * rotY(a(1)) * rotZ(a(0)))
                   .norm() <= 1e-15);
    BOOST_TEST(
        (eulerToMatrix(a, EulerSequence::ZYX, EulerAxes::Moving) - rotZ(a(0)) * rotY(a(1)) * rotX(a(2)))
            .norm() <= 1e-15);
    for (EulerSequence s : kSequences) {
      for (EulerAxes ax : kAxes) {
        BOOST_TEST((eulerToMatrix(a, s, ax) - composeStepByStep(a, s, ax)).norm() <= 1e-14, name(s, ax));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(fixed_moving_rpy_identity) {
  std::mt19937 rng(203);
  for (int trial = 0; trial < 100; ++trial) {
    const Vector3 a = randomAngles(rng);
    const Vector3 reversed(a(2), a(1), a(0));
    // Fixed XYZ (a, b, c) == Moving ZYX (c, b, a) == rpy (a, b, c), and the same for the other pair:
    // Fixed ZYX (a, b, c) == Moving XYZ (c, b, a). Absolute 1e-15.
    const Matrix3 fixed_xyz = eulerToMatrix(a, EulerSequence::XYZ, EulerAxes::Fixed);
    BOOST_TEST((fixed_xyz - eulerToMatrix(reversed, EulerSequence::ZYX, EulerAxes::Moving)).norm() <= 1e-15);
    BOOST_TEST((fixed_xyz - rpyToMatrix(a)).norm() <= 1e-15);
    BOOST_TEST((eulerToMatrix(a, EulerSequence::ZYX, EulerAxes::Fixed) -
                eulerToMatrix(reversed, EulerSequence::XYZ, EulerAxes::Moving)).norm() <= 1e-15);
    // And the extracted angles agree the same way (1e-13 rad).
    const Vector3 from_moving = matrixToEuler(fixed_xyz, EulerSequence::ZYX, EulerAxes::Moving);
    BOOST_TEST((Vector3(from_moving(2), from_moving(1), from_moving(0)) - matrixToRpy(fixed_xyz)).norm() <=
               1e-13);
  }
}

BOOST_AUTO_TEST_CASE(round_trips_for_every_combination) {
  std::mt19937 rng(204);
  for (EulerSequence s : kSequences) {
    for (EulerAxes ax : kAxes) {
      for (int trial = 0; trial < 300; ++trial) {
        // Angles -> matrix -> angles: the same angles back (absolute 1e-12 rad; the middle angle is at
        // least 0.01 from gimbal lock, so the outer ones are conditioned to ~1/cos(0.01 margin) ~ 100 eps).
        const Vector3 a = randomAngles(rng);
        const Vector3 back = matrixToEuler(eulerToMatrix(a, s, ax), s, ax);
        BOOST_TEST((back - a).norm() <= 1e-12, name(s, ax) << " angles " << a.transpose());
        // Matrix -> angles -> matrix for uniform random rotations (absolute 1e-14), angles in range.
        const Matrix3 R = randomRotation(rng);
        const Vector3 e = matrixToEuler(R, s, ax);
        BOOST_TEST((eulerToMatrix(e, s, ax) - R).norm() <= 1e-14, name(s, ax));
        BOOST_TEST(std::abs(e(1)) <= kPi / 2);
        BOOST_TEST(std::abs(e(0)) <= kPi);
        BOOST_TEST(std::abs(e(2)) <= kPi);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(gimbal_lock) {
  std::mt19937 rng(205);
  std::uniform_real_distribution<double> outer(-kPi, kPi);
  for (EulerSequence s : kSequences) {
    for (EulerAxes ax : kAxes) {
      // The X angle is the first one for Fixed XYZ and Moving XYZ, the third for Fixed ZYX and Moving ZYX.
      const bool x_first = (s == EulerSequence::XYZ);
      for (double middle : {kPi / 2, -kPi / 2}) {
        for (int trial = 0; trial < 100; ++trial) {
          const Vector3 a(outer(rng), middle, outer(rng));
          const Matrix3 R = eulerToMatrix(a, s, ax);
          const Vector3 e = matrixToEuler(R, s, ax);
          // Reproduces the matrix to 1e-12 (observed <= 5e-16), middle angle +-pi/2 to 1e-15 (it comes
          // from atan2(-+1, ~6e-17)), X angle exactly 0.
          BOOST_TEST((eulerToMatrix(e, s, ax) - R).norm() <= 1e-12, name(s, ax) << " middle " << middle);
          BOOST_TEST(std::abs(e(1) - middle) <= 1e-15);
          BOOST_TEST(e(x_first ? 0 : 2) == 0.0, name(s, ax));
          BOOST_TEST(std::abs(e(x_first ? 2 : 0)) <= kPi);
        }
      }
      // Near gimbal lock (cos(middle) down to 1e-14) the angles still reproduce the matrix (1e-12).
      for (double offset : {1e-3, 1e-7, 1e-10, 1e-14}) {
        const Vector3 a(0.7, kPi / 2 - offset, -2.1);
        const Matrix3 R = eulerToMatrix(a, s, ax);
        BOOST_TEST((eulerToMatrix(matrixToEuler(R, s, ax), s, ax) - R).norm() <= 1e-12,
                   name(s, ax) << " offset " << offset);
      }
    }
  }
  // rpy at gimbal lock: roll = 0, the rotation about the outer axes goes into yaw. At pitch = pi/2,
  // Rz(y) Ry(pi/2) Rx(r) depends on y - r only, so (r, pi/2, y) -> (0, pi/2, y - r) (1e-12).
  const Vector3 rpy = matrixToRpy(rpyToMatrix(Vector3(0.4, kPi / 2, 1.0)));
  BOOST_TEST(rpy(0) == 0.0);
  BOOST_TEST(std::abs(rpy(2) - 0.6) <= 1e-12);
  // At pitch = -pi/2 it depends on y + r: (0.4, -pi/2, 1.0) -> (0, -pi/2, 1.4).
  const Vector3 rpy_neg = matrixToRpy(rpyToMatrix(Vector3(0.4, -kPi / 2, 1.0)));
  BOOST_TEST(rpy_neg(0) == 0.0);
  BOOST_TEST(std::abs(rpy_neg(2) - 1.4) <= 1e-12);
}
