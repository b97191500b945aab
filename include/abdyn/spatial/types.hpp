#pragma once
/// @file
/// Fixed-size Eigen types used across abdyn, and the 3D cross-product matrix.
///
/// ABI note: the library target exports EIGEN_MAX_ALIGN_BYTES=16 (see README, "Compiler flags and ABI"),
/// so every Eigen type below has the same layout and alignment in the library and in a program built
/// with different -march flags.

#include <Eigen/Core>
#include <Eigen/Geometry>

/// `inline`, and forced on GCC and Clang: the small spatial operations (transforms, cross products,
/// inertia products) go inline into the algorithms' loops, where GCC's size heuristics otherwise leave calls.
#if defined(__GNUC__)
#define ABDYN_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ABDYN_ALWAYS_INLINE inline
#endif

namespace abdyn {

/// 3-vector of doubles.
using Vector3 = Eigen::Vector3d;
/// 3x3 matrix of doubles (rotations, rotational inertias).
using Matrix3 = Eigen::Matrix3d;
/// 4-vector of doubles (quaternion coefficients).
using Vector4 = Eigen::Vector4d;
/// 6-vector of doubles: a spatial vector, [angular; linear].
using Vector6 = Eigen::Matrix<double, 6, 1>;
/// 6x6 matrix of doubles: a spatial operator, angular first.
using Matrix6 = Eigen::Matrix<double, 6, 6>;

/// Cross-product matrix: skew(a) * b == a.cross(b).
inline Matrix3 skew(const Vector3& a) {
  Matrix3 s;
  s << 0.0, -a.z(), a.y(),
       a.z(), 0.0, -a.x(),
       -a.y(), a.x(), 0.0;
  return s;
}

/// Inverse of skew: the vector of the skew-symmetric part of m, so unskew(skew(a)) == a.
inline Vector3 unskew(const Matrix3& m) {
  return 0.5 * Vector3(m(2, 1) - m(1, 2), m(0, 2) - m(2, 0), m(1, 0) - m(0, 1));
}

}  // namespace abdyn
