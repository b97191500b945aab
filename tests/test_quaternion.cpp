#define BOOST_TEST_MODULE quaternion
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>

#include "abdyn/error.hpp"
#include "abdyn/spatial/quaternion.hpp"
#include "abdyn/spatial/rotation.hpp"
#include "test_helpers.hpp"

using namespace abdyn;
using namespace abdyn::test;

namespace {

constexpr double kPi = 3.14159265358979323846;

Quaternion randomQuaternion(std::mt19937& rng, double scale = 1.0) {
  std::normal_distribution<double> n(0.0, scale);
  return Quaternion(n(rng), n(rng), n(rng), n(rng));
}

Quaternion randomUnitQuaternion(std::mt19937& rng) { return randomQuaternion(rng).normalized(); }

Quaternion negated(const Quaternion& q) { return Quaternion::fromCoeffsWxyz(-q.coeffsWxyz()); }

// The Hamilton product as a matrix: q1 * q2 = L(q1) [w2 x2 y2 z2]^T, from i j = k, j k = i, k i = j.
Eigen::Matrix4d leftMatrix(const Quaternion& q) {
  Eigen::Matrix4d L;
  L << q.w(), -q.x(), -q.y(), -q.z(),
       q.x(), q.w(), -q.z(), q.y(),
       q.y(), q.z(), q.w(), -q.x(),
       q.z(), -q.y(), q.x(), q.w();
  return L;
}

// Distance between quaternions up to sign: min(|a - b|, |a + b|).
double signlessDistance(const Quaternion& a, const Quaternion& b) {
  return std::min((a.coeffsWxyz() - b.coeffsWxyz()).norm(), (a.coeffsWxyz() + b.coeffsWxyz()).norm());
}

// Predicate for BOOST_CHECK_EXCEPTION: the message names `function` and contains `fragment`.
auto messageHas(const std::string& function, const std::string& fragment) {
  return [function, fragment](const Error& e) {
    const std::string what = e.what();
    return what.find(function) != std::string::npos && what.find(fragment) != std::string::npos;
  };
}

}  // namespace

BOOST_AUTO_TEST_CASE(storage_layout) {
  static_assert(std::is_standard_layout_v<Quaternion>);
  static_assert(sizeof(Quaternion) == 4 * sizeof(double));
  const Quaternion q(1.0, 2.0, 3.0, 4.0);
  // The four doubles are in the order w, x, y, z.
  double raw[4];
  std::memcpy(raw, &q, sizeof raw);
  BOOST_TEST(raw[0] == 1.0);
  BOOST_TEST(raw[1] == 2.0);
  BOOST_TEST(raw[2] == 3.0);
  BOOST_TEST(raw[3] == 4.0);
  BOOST_TEST((q.coeffsWxyz() == Vector4(1.0, 2.0, 3.0, 4.0)));
  BOOST_TEST((q.coeffsXyzw() == Vector4(2.0, 3.0, 4.0, 1.0)));
  BOOST_TEST((q.vec() == Vector3(2.0, 3.0, 4.0)));
  BOOST_TEST((Quaternion().coeffsWxyz() == Vector4(1.0, 0.0, 0.0, 0.0)));
  // Pinocchio / Eigen order round trip (exact).
  BOOST_TEST((Quaternion::fromCoeffsXyzw(q.coeffsXyzw()).coeffsWxyz() == q.coeffsWxyz()));
  BOOST_TEST((Quaternion::fromCoeffsWxyz(q.coeffsWxyz()).coeffsWxyz() == q.coeffsWxyz()));
  const Quaternion p = Quaternion::fromCoeffsXyzw(Vector4(0.1, 0.2, 0.3, 0.9));
  BOOST_TEST(p.w() == 0.9);
  BOOST_TEST(p.x() == 0.1);
}

BOOST_AUTO_TEST_CASE(hamilton_units) {
  const Quaternion one(1, 0, 0, 0), i(0, 1, 0, 0), j(0, 0, 1, 0), k(0, 0, 0, 1);
  const Quaternion minus_one(-1, 0, 0, 0);
  // Exact: products of unit basis elements involve no rounding.
  BOOST_TEST(((i * j).coeffsWxyz() == k.coeffsWxyz()));
  BOOST_TEST(((j * k).coeffsWxyz() == i.coeffsWxyz()));
  BOOST_TEST(((k * i).coeffsWxyz() == j.coeffsWxyz()));
  BOOST_TEST(((j * i).coeffsWxyz() == -k.coeffsWxyz()));
  for (const Quaternion& u : {i, j, k}) BOOST_TEST(((u * u).coeffsWxyz() == minus_one.coeffsWxyz()));
  BOOST_TEST(((i * j * k).coeffsWxyz() == minus_one.coeffsWxyz()));
  BOOST_TEST(((one * i).coeffsWxyz() == i.coeffsWxyz()));
}

BOOST_AUTO_TEST_CASE(product_matches_left_matrix_and_rotation_product) {
  std::mt19937 rng(101);
  for (int trial = 0; trial < 200; ++trial) {
    const Quaternion q1 = randomQuaternion(rng), q2 = randomQuaternion(rng);
    // Relative 1e-15: each coefficient is a 4-term sum.
    ABDYN_CHECK_REL((q1 * q2).coeffsWxyz(), leftMatrix(q1) * q2.coeffsWxyz(), 1e-15);
    // |q1 q2| = |q1| |q2| (relative 1e-15).
    BOOST_TEST(std::abs((q1 * q2).norm() - q1.norm() * q2.norm()) <= 1e-15 * q1.norm() * q2.norm());
    const Quaternion u1 = q1.normalized(), u2 = q2.normalized(), u3 = randomUnitQuaternion(rng);
    // Rotation matrices compose like the quaternions (Frobenius 4e-15: a few ulps on 9 entries <= 1).
    BOOST_TEST(((u1 * u2).toRotationMatrix() - u1.toRotationMatrix() * u2.toRotationMatrix()).norm() <= 4e-15);
    // Associativity (1e-15).
    BOOST_TEST((((u1 * u2) * u3).coeffsWxyz() - (u1 * (u2 * u3)).coeffsWxyz()).norm() <= 1e-15);
  }
}

BOOST_AUTO_TEST_CASE(rotate_matches_matrix_and_sandwich) {
  std::mt19937 rng(102);
  for (int trial = 0; trial < 200; ++trial) {
    const Quaternion q = randomUnitQuaternion(rng);
    const Vector3 v = randomVector3(rng, 2.0);
    const Matrix3 R = q.toRotationMatrix();
    BOOST_TEST(isRotation(R, 1e-14));
    // Relative 1e-15 of |v|.
    ABDYN_CHECK_REL(q.rotate(v), R * v, 1e-15);
    // The sandwich q (0, v) q^-1 written with the product.
    const Quaternion sandwich = q * Quaternion(0.0, v.x(), v.y(), v.z()) * q.inverse();
    BOOST_TEST(std::abs(sandwich.w()) <= 1e-15 * v.norm());
    ABDYN_CHECK_REL(sandwich.vec(), q.rotate(v), 1e-15);
    // A non-unit quaternion rotates like its normalisation (relative 1e-15).
    const Quaternion scaled = Quaternion::fromCoeffsWxyz(3.5 * q.coeffsWxyz());
    ABDYN_CHECK_REL(scaled.rotate(v), q.rotate(v), 1e-15);
    ABDYN_CHECK_REL(scaled.toRotationMatrix(), R, 1e-15);
  }
  // The documented orientation: the rotation by 90 degrees about z maps x to y (exact up to 1e-16).
  const Quaternion qz = Quaternion::fromAxisAngle(Vector3::UnitZ(), kPi / 2);
  BOOST_TEST((qz.rotate(Vector3::UnitX()) - Vector3::UnitY()).norm() <= 1e-15);
}

BOOST_AUTO_TEST_CASE(matrix_round_trips) {
  std::mt19937 rng(103);
  for (int trial = 0; trial < 1000; ++trial) {
    const Quaternion q = randomUnitQuaternion(rng);
    const Quaternion back = Quaternion::fromRotationMatrix(q.toRotationMatrix());
    BOOST_TEST(back.w() >= 0.0);
    // +-q to 1e-15 (Shepperd's method loses nothing beyond rounding), unit to 1e-15.
    BOOST_TEST(signlessDistance(back, q) <= 1e-15);
    BOOST_TEST(std::abs(back.norm() - 1.0) <= 1e-15);
    const Matrix3 R = randomRotation(rng);
    BOOST_TEST((Quaternion::fromRotationMatrix(R).toRotationMatrix() - R).norm() <= 2e-15);
  }
}

BOOST_AUTO_TEST_CASE(matrix_round_trips_near_shepperd_branches) {
  std::mt19937 rng(104);
  std::uniform_real_distribution<double> small(-0.05, 0.05);
  // For each component c in w, x, y, z: quaternions where c dominates (the branch choosing it), where
  // it ties with another (the branch boundary), and where the others are tiny (angle ~0 for w,
  // half turns for x, y, z where the trace formula alone would fail).
  for (int c = 0; c < 4; ++c) {
    for (int trial = 0; trial < 100; ++trial) {
      Vector4 coeffs;
      for (int k = 0; k < 4; ++k) coeffs(k) = small(rng);
      coeffs(c) = 1.0;
      const int other = (c + 1 + trial % 3) % 4;
      if (trial % 4 == 1) coeffs(other) = 1.0;                 // tie between two components
      if (trial % 4 == 2) coeffs *= 1e-9, coeffs(c) = 1.0;     // the others tiny
      if (trial % 4 == 3) coeffs.setZero(), coeffs(c) = 1.0;   // exactly a basis element
      const Quaternion q = Quaternion::fromCoeffsWxyz(coeffs).normalized();
      const Matrix3 R = q.toRotationMatrix();
      const Quaternion back = Quaternion::fromRotationMatrix(R);
      BOOST_TEST(back.w() >= 0.0);
      BOOST_TEST(signlessDistance(back, q) <= 1e-15, "component " << c << " trial " << trial);
      BOOST_TEST((back.toRotationMatrix() - R).norm() <= 2e-15);
    }
  }
  // A slightly non-orthonormal matrix still gives a unit quaternion close to the rotation (1e-8 for
  // a 1e-8 perturbation).
  const Matrix3 R = randomRotation(rng);
  const Quaternion q = Quaternion::fromRotationMatrix(R + 1e-8 * Matrix3::Ones());
  BOOST_TEST(std::abs(q.norm() - 1.0) <= 1e-15);
  BOOST_TEST((q.toRotationMatrix() - R).norm() <= 1e-7);
  BOOST_CHECK_THROW(Quaternion::fromRotationMatrix(Matrix3::Constant(std::numeric_limits<double>::quiet_NaN())),
                    InvalidArgument);
}

BOOST_AUTO_TEST_CASE(conjugate_and_inverse_identities) {
  std::mt19937 rng(105);
  const Vector4 identity(1.0, 0.0, 0.0, 0.0);
  for (int trial = 0; trial < 200; ++trial) {
    const Quaternion p = randomQuaternion(rng, 3.0), q = randomQuaternion(rng, 0.2);
    // q q^-1 = q^-1 q = 1 for non-unit q too (1e-15).
    BOOST_TEST(((q * q.inverse()).coeffsWxyz() - identity).norm() <= 1e-15);
    BOOST_TEST(((q.inverse() * q).coeffsWxyz() - identity).norm() <= 1e-15);
    // (p q)* = q* p* (relative 1e-15), q q* = |q|^2, (q*)* = q (exact), (p q)^-1 = q^-1 p^-1.
    ABDYN_CHECK_REL((p * q).conjugate().coeffsWxyz(), (q.conjugate() * p.conjugate()).coeffsWxyz(), 1e-15);
    ABDYN_CHECK_REL((q * q.conjugate()).coeffsWxyz(), Vector4(q.squaredNorm(), 0, 0, 0), 1e-15);
    BOOST_TEST((q.conjugate().conjugate().coeffsWxyz() == q.coeffsWxyz()));
    ABDYN_CHECK_REL((p * q).inverse().coeffsWxyz(), (q.inverse() * p.inverse()).coeffsWxyz(), 1e-14);
    // For unit q, inverse = conjugate (1e-15), and it undoes the rotation (relative 4e-15).
    const Quaternion u = q.normalized();
    BOOST_TEST((u.inverse().coeffsWxyz() - u.conjugate().coeffsWxyz()).norm() <= 1e-15);
    const Vector3 v = randomVector3(rng);
    ABDYN_CHECK_REL(u.conjugate().rotate(u.rotate(v)), v, 4e-15);
    BOOST_TEST(u.isUnit(1e-15));
    BOOST_TEST(!Quaternion::fromCoeffsWxyz(1.001 * u.coeffsWxyz()).isUnit(1e-4));
  }
}

BOOST_AUTO_TEST_CASE(invalid_quaternions_throw) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Quaternion zero(0, 0, 0, 0), bad(nan, 0, 0, 1);
  BOOST_CHECK_EXCEPTION(zero.normalized(), Error, messageHas("abdyn::Quaternion::normalized", "zero norm"));
  BOOST_CHECK_EXCEPTION(bad.normalized(), Error, messageHas("abdyn::Quaternion::normalized", "non-finite"));
  BOOST_CHECK_EXCEPTION(Quaternion(0, 0, std::numeric_limits<double>::infinity(), 0).normalized(), Error,
                        messageHas("abdyn::Quaternion::normalized", "non-finite"));
  BOOST_CHECK_EXCEPTION(zero.inverse(), Error, messageHas("abdyn::Quaternion::inverse", "zero norm"));
  BOOST_CHECK_EXCEPTION(zero.rotate(Vector3::UnitX()), Error,
                        messageHas("abdyn::Quaternion::rotate", "zero norm"));
  BOOST_CHECK_EXCEPTION(bad.toRotationMatrix(), Error,
                        messageHas("abdyn::Quaternion::toRotationMatrix", "non-finite"));
  BOOST_CHECK_EXCEPTION(rotationVector(zero), Error, messageHas("abdyn::rotationVector", "zero norm"));
  BOOST_CHECK_THROW(angularDistance(Quaternion(), zero), Error);
  BOOST_CHECK_THROW(Quaternion::fromAxisAngle(Vector3::Zero(), 1.0), Error);
  BOOST_CHECK_THROW(Quaternion::fromAxisAngle(Vector3(nan, 1, 0), 1.0), InvalidArgument);
  BOOST_CHECK_THROW(Quaternion().isUnit(-1.0), InvalidArgument);
  // A tiny but representable quaternion is still usable.
  BOOST_TEST(std::abs(Quaternion(1e-150, 0, 1e-150, 0).normalized().norm() - 1.0) <= 1e-15);
}

BOOST_AUTO_TEST_CASE(axis_angle_and_exponential) {
  std::mt19937 rng(106);
  std::uniform_real_distribution<double> angle(-3.0, 3.0);
  for (int trial = 0; trial < 200; ++trial) {
    const Vector3 axis = randomVector3(rng).normalized();
    const double a = angle(rng);
    const Quaternion q = Quaternion::fromAxisAngle(2.0 * axis, a);
    // Same rotation as the matrix routes (Frobenius 4e-15: a few ulps on 9 entries <= 1).
    BOOST_TEST((q.toRotationMatrix() - rotationFromAxisAngle(axis, a)).norm() <= 4e-15);
    BOOST_TEST((quaternionFromRotationVector(a * axis).toRotationMatrix() - expSO3(a * axis)).norm() <= 4e-15);
    // exp of the pure quaternion (0, u) is (cos|u|, sin|u| u/|u|) and, with u = omega/2, fromAxisAngle.
    BOOST_TEST((expQuaternion(0.5 * a * axis).coeffsWxyz() - q.coeffsWxyz()).norm() <= 1e-15);
  }
  // Tiny arguments: (cos t, sin t / t u) from the series (relative 2e-16 on the vector part).
  for (double t : {0.0, 1e-300, 1e-12, 1e-6, 1e-4}) {
    const Vector3 u = t * Vector3(0.0, 0.6, 0.8);
    const Quaternion e = expQuaternion(u);
    BOOST_TEST(e.w() == std::cos(t));
    BOOST_TEST((e.vec() - u * (t > 0 ? std::sin(t) / t : 1.0)).norm() <= 2e-16 * t);
  }
}

BOOST_AUTO_TEST_CASE(rotation_vector_round_trips) {
  std::mt19937 rng(107);
  // log(exp(omega)) == omega for |omega| < pi, including tiny angles and angles near pi where w ~ 0.
  // Tolerance: relative 1e-14 of |omega| plus 1e-300.
  for (double a : {0.0, 1e-300, 1e-12, 1e-7, 1e-3, 1.0, 3.0, kPi - 1e-6, kPi - 1e-12}) {
    for (int trial = 0; trial < 50; ++trial) {
      const Vector3 omega = a * randomVector3(rng).normalized();
      const Quaternion q = quaternionFromRotationVector(omega);
      BOOST_TEST((rotationVector(q) - omega).norm() <= 1e-14 * a + 1e-300, "angle " << a);
      // q and -q are the same rotation and give the same vector (the shortest rotation).
      BOOST_TEST((rotationVector(negated(q)) - omega).norm() <= 1e-14 * a + 1e-300, "angle " << a);
      // Agrees with the matrix logarithm (absolute 1e-13 as logSO3 is a bit less accurate near pi).
      BOOST_TEST((logSO3(q.toRotationMatrix()) - omega).norm() <= 1e-13, "angle " << a);
    }
  }
  // Beyond pi the shortest rotation is returned: 1.5 pi about n is -0.5 pi about n.
  const Vector3 n = Vector3(1.0, 2.0, -2.0) / 3.0;
  BOOST_TEST((rotationVector(quaternionFromRotationVector(1.5 * kPi * n)) + 0.5 * kPi * n).norm() <= 1e-14);
  // Exactly pi (w = 0): q and -q give the same vector, with the largest |component| positive.
  const Vector3 m = Vector3(2.0, 3.0, -6.0) / 7.0;
  const Quaternion half_turn(0.0, m.x(), m.y(), m.z());
  const Vector3 expected = -kPi * m;
  BOOST_TEST((rotationVector(half_turn) - expected).norm() <= 1e-15);
  BOOST_TEST((rotationVector(negated(half_turn)) - expected).norm() <= 1e-15);
  // A non-unit quaternion gives the rotation vector of its normalisation (relative 1e-15).
  const Vector3 omega(0.3, -0.2, 0.9);
  const Quaternion scaled = Quaternion::fromCoeffsWxyz(7.0 * quaternionFromRotationVector(omega).coeffsWxyz());
  ABDYN_CHECK_REL(rotationVector(scaled), omega, 1e-15);
}

BOOST_AUTO_TEST_CASE(angular_distance) {
  std::mt19937 rng(108);
  std::uniform_real_distribution<double> angle(0.0, kPi);
  for (int trial = 0; trial < 200; ++trial) {
    const Quaternion q1 = randomUnitQuaternion(rng);
    const double a = angle(rng);
    const Vector3 axis = randomVector3(rng).normalized();
    const Quaternion q2 = q1 * Quaternion::fromAxisAngle(axis, a);
    // Absolute 1e-14 rad, sign-blind and symmetric.
    BOOST_TEST(std::abs(angularDistance(q1, q2) - a) <= 1e-14);
    BOOST_TEST(std::abs(angularDistance(q1, negated(q2)) - a) <= 1e-14);
    BOOST_TEST(std::abs(angularDistance(q2, q1) - a) <= 1e-14);
  }
  BOOST_TEST(angularDistance(Quaternion(), Quaternion()) == 0.0);
}

// Rate matrices: the derivation in quaternion.hpp is checked against finite differences of the motion
// it describes. A body-frame angular velocity omega moves q to q * exp(omega dt) (rotation about the
// body axes, applied on the right); a world-frame one moves it to exp(omega dt) * q.
BOOST_AUTO_TEST_CASE(rate_matrices_match_finite_differences) {
  std::mt19937 rng(109);
  const double dt = 1e-6;  // central difference: truncation ~dt^2 = 1e-12, rounding ~1e-16 / dt = 1e-10
  for (int trial = 0; trial < 100; ++trial) {
    const Quaternion q = randomUnitQuaternion(rng);
    const Vector3 omega = randomVector3(rng, 3.0);
    const Vector4 body_fd = ((q * quaternionFromRotationVector(omega * dt)).coeffsWxyz() -
                             (q * quaternionFromRotationVector(-omega * dt)).coeffsWxyz()) / (2 * dt);
    const Vector4 world_fd = ((quaternionFromRotationVector(omega * dt) * q).coeffsWxyz() -
                              (quaternionFromRotationVector(-omega * dt) * q).coeffsWxyz()) / (2 * dt);
    const Vector4 body_rate = 0.5 * rateMatrixBody(q) * omega;
    const Vector4 world_rate = 0.5 * rateMatrixWorld(q) * omega;
    // Absolute 1e-8 on rates of size |omega| / 2 <= 2.6.
    BOOST_TEST((body_rate - body_fd).norm() <= 1e-8);
    BOOST_TEST((world_rate - world_fd).norm() <= 1e-8);
    // The two frames differ unless omega is along the rotation axis: with omega_world = R omega_body
    // both give the same qdot (relative 1e-15).
    const Matrix3 R = q.toRotationMatrix();
    ABDYN_CHECK_REL(0.5 * rateMatrixWorld(q) * (R * omega), body_rate, 1e-15);
    BOOST_TEST((world_rate - body_rate).norm() > 1e-3 * omega.norm());
    // The rate matrices against the products they stand for: q * (0, w) and (0, w) * q (1e-15).
    const Quaternion pure(0.0, omega.x(), omega.y(), omega.z());
    ABDYN_CHECK_REL(rateMatrixBody(q) * omega, (q * pure).coeffsWxyz(), 1e-15);
    ABDYN_CHECK_REL(rateMatrixWorld(q) * omega, (pure * q).coeffsWxyz(), 1e-15);
    // The rotation matrix then moves as Rdot = R skew(w_body) = skew(w_world) R. The finite difference
    // is taken along q + s qdot (toRotationMatrix normalises), tolerance 1e-8 as above.
    const Matrix3 Rdot = (Quaternion::fromCoeffsWxyz(q.coeffsWxyz() + dt * body_rate).toRotationMatrix() -
                          Quaternion::fromCoeffsWxyz(q.coeffsWxyz() - dt * body_rate).toRotationMatrix()) /
                         (2 * dt);
    BOOST_TEST((Rdot - R * skew(omega)).norm() <= 1e-8);
    BOOST_TEST((Rdot - skew(R * omega) * R).norm() <= 1e-8);
    // Inverse maps: omega = 2 B^T qdot for unit q, and B^T B = I (relative 1e-15).
    ABDYN_CHECK_REL(angularVelocityBodyFromRate(q, body_rate), omega, 1e-15);
    ABDYN_CHECK_REL(angularVelocityWorldFromRate(q, world_rate), omega, 1e-15);
    ABDYN_CHECK_REL(Matrix3(rateMatrixBody(q).transpose() * rateMatrixBody(q)), Matrix3::Identity(), 1e-15);
    ABDYN_CHECK_REL(Matrix3(rateMatrixWorld(q).transpose() * rateMatrixWorld(q)), Matrix3::Identity(), 1e-15);
    // A rate along q itself (a change of norm) carries no angular velocity: B^T q = 0 (1e-15).
    BOOST_TEST(angularVelocityBodyFromRate(q, q.coeffsWxyz()).norm() <= 1e-15);
    BOOST_TEST(angularVelocityWorldFromRate(q, q.coeffsWxyz()).norm() <= 1e-15);
  }
}

BOOST_AUTO_TEST_CASE(printing) {
  std::ostringstream os;
  os << Quaternion(1.0, -0.5, 0.25, 2.0);
  BOOST_TEST(os.str() == "Quaternion(w=1, x=-0.5, y=0.25, z=2)");
}
