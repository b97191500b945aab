#pragma once
/// @file
/// Spatial motion vectors (velocities, accelerations, joint axes), angular first: [w; v].
///
/// In Pluecker coordinates of a frame F, w is the angular velocity and v the velocity of the
/// body-fixed point that is momentarily at F's origin, both expressed in F. The frame is not stored:
/// name variables after it (v_B: a motion in B coordinates).

#include <ostream>

#include "abdyn/spatial/types.hpp"

namespace abdyn {

class Force;

/// A spatial motion (velocity, acceleration, joint axis) in Pluecker coordinates of a frame, angular
/// first: [w; v] (see the file comment). The frame is not stored: name variables after it.
class Motion {
 public:
  /// The zero motion.
  Motion() : w_(Vector3::Zero()), v_(Vector3::Zero()) {}
  /// From its angular and linear parts.
  Motion(const Vector3& angular, const Vector3& linear) : w_(angular), v_(linear) {}
  /// From a 6-vector [angular; linear].
  explicit Motion(const Vector6& angular_linear)
      : w_(angular_linear.head<3>()), v_(angular_linear.tail<3>()) {}

  /// The zero motion.
  static Motion Zero() { return Motion(); }

  ///@{
  /// The angular part (3) and the linear part (3).
  const Vector3& angular() const { return w_; }
  const Vector3& linear() const { return v_; }
  Vector3& angular() { return w_; }
  Vector3& linear() { return v_; }
  ///@}

  /// The 6-vector [angular; linear].
  Vector6 vector() const {
    Vector6 m;
    m << w_, v_;
    return m;
  }

  ///@{
  /// Sum, difference, negation and scaling, part by part (same frame on both sides).
  Motion operator+(const Motion& o) const { return Motion(w_ + o.w_, v_ + o.v_); }
  Motion operator-(const Motion& o) const { return Motion(w_ - o.w_, v_ - o.v_); }
  Motion operator-() const { return Motion(-w_, -v_); }
  Motion operator*(double s) const { return Motion(s * w_, s * v_); }
  Motion& operator+=(const Motion& o) {
    w_ += o.w_;
    v_ += o.v_;
    return *this;
  }
  Motion& operator-=(const Motion& o) {
    w_ -= o.w_;
    v_ -= o.v_;
    return *this;
  }
  Motion& operator*=(double s) {
    w_ *= s;
    v_ *= s;
    return *this;
  }
  ///@}

  /// Spatial cross product with a motion, this x m (Featherstone's crm(this) * m).
  ABDYN_ALWAYS_INLINE Motion cross(const Motion& m) const { return Motion(w_.cross(m.w_), w_.cross(m.v_) + v_.cross(m.w_)); }
  /// Dual cross product with a force, this x* f (Featherstone's crf(this) * f).
  inline Force crossDual(const Force& f) const;

  /// Whether the 6-vectors agree to relative precision prec (Eigen's isApprox).
  bool isApprox(const Motion& o, double prec = 1e-12) const { return vector().isApprox(o.vector(), prec); }

 private:
  Vector3 w_;  ///< angular part
  Vector3 v_;  ///< linear part
};

/// The motion scaled by s.
inline Motion operator*(double s, const Motion& m) { return m * s; }

/// Prints "Motion(angular=[...], linear=[...])".
inline std::ostream& operator<<(std::ostream& os, const Motion& m) {
  return os << "Motion(angular=[" << m.angular().transpose() << "], linear=[" << m.linear().transpose() << "])";
}

}  // namespace abdyn

#include "abdyn/spatial/force.hpp"

namespace abdyn {

ABDYN_ALWAYS_INLINE Force Motion::crossDual(const Force& f) const {
  return Force(w_.cross(f.angular()) + v_.cross(f.linear()), w_.cross(f.linear()));
}

}  // namespace abdyn
