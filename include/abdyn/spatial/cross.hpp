#pragma once
/// @file
/// Spatial cross products (Featherstone, RBDA sec. 2.9) and the power pairing of motions and forces.
///
///   crm(m) = [wx 0; vx wx]   so crm(m) * m2 = m x m2    (motion x motion)
///   crf(m) = [wx vx; 0 wx]   so crf(m) * f  = m x* f    (motion x* force),  crf(m) = -crm(m)^T

#include "abdyn/spatial/force.hpp"
#include "abdyn/spatial/motion.hpp"

namespace abdyn {

/// Power of force f on motion m: m . f (both in the same frame).
inline double dot(const Motion& m, const Force& f) {
  return m.angular().dot(f.angular()) + m.linear().dot(f.linear());
}
/// Power of force f on motion m: f . m = m . f.
inline double dot(const Force& f, const Motion& m) { return dot(m, f); }

/// m x m2.
inline Motion crm(const Motion& m, const Motion& m2) { return m.cross(m2); }
/// m x* f.
inline Force crf(const Motion& m, const Force& f) { return m.crossDual(f); }

/// The 6x6 matrix of m x (.) acting on motions.
inline Matrix6 crm(const Motion& m) {
  Matrix6 c = Matrix6::Zero();
  const Matrix3 wx = skew(m.angular());
  c.topLeftCorner<3, 3>() = wx;
  c.bottomLeftCorner<3, 3>() = skew(m.linear());
  c.bottomRightCorner<3, 3>() = wx;
  return c;
}

/// The 6x6 matrix of m x* (.) acting on forces, -crm(m)^T.
inline Matrix6 crf(const Motion& m) { return -crm(m).transpose(); }

}  // namespace abdyn
