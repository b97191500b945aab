#pragma once
/// @file
/// Spatial force vectors (wrenches, momenta), angular first: [n; f].
///
/// In Pluecker coordinates of a frame F, n is the moment about F's origin and f the resultant force,
/// both expressed in F. Forces are dual to motions: dot(motion, force) is power; a force and a motion
/// cannot be added, and a force is moved between frames by the dual transform X* = X^-T.

#include <ostream>

#include "abdyn/spatial/types.hpp"

namespace abdyn {

class Motion;

/// A spatial force (a wrench) in Pluecker coordinates of a frame, angular first: [n; f], the moment n
/// about the frame origin and the resultant force f. The frame is not stored: name variables after it.
class Force {
 public:
  /// The zero force.
  Force() : n_(Vector3::Zero()), f_(Vector3::Zero()) {}
  /// From its angular and linear parts.
  Force(const Vector3& angular, const Vector3& linear) : n_(angular), f_(linear) {}
  /// From a 6-vector [angular; linear].
  explicit Force(const Vector6& angular_linear) : n_(angular_linear.head<3>()), f_(angular_linear.tail<3>()) {}

  /// The zero force.
  static Force Zero() { return Force(); }

  ///@{
  /// The angular part (3) and the linear part (3).
  const Vector3& angular() const { return n_; }
  const Vector3& linear() const { return f_; }
  Vector3& angular() { return n_; }
  Vector3& linear() { return f_; }
  ///@}

  /// The 6-vector [angular; linear].
  Vector6 vector() const {
    Vector6 f;
    f << n_, f_;
    return f;
  }

  ///@{
  /// Sum, difference, negation and scaling, part by part (same frame on both sides).
  Force operator+(const Force& o) const { return Force(n_ + o.n_, f_ + o.f_); }
  Force operator-(const Force& o) const { return Force(n_ - o.n_, f_ - o.f_); }
  Force operator-() const { return Force(-n_, -f_); }
  Force operator*(double s) const { return Force(s * n_, s * f_); }
  Force& operator+=(const Force& o) {
    n_ += o.n_;
    f_ += o.f_;
    return *this;
  }
  Force& operator-=(const Force& o) {
    n_ -= o.n_;
    f_ -= o.f_;
    return *this;
  }
  Force& operator*=(double s) {
    n_ *= s;
    f_ *= s;
    return *this;
  }
  ///@}

  /// Whether the 6-vectors agree to relative precision prec (Eigen's isApprox).
  bool isApprox(const Force& o, double prec = 1e-12) const { return vector().isApprox(o.vector(), prec); }

 private:
  Vector3 n_;  ///< moment about the frame origin
  Vector3 f_;  ///< resultant force
};

/// The force scaled by s.
inline Force operator*(double s, const Force& f) { return f * s; }

/// Prints "Force(angular=[...], linear=[...])".
inline std::ostream& operator<<(std::ostream& os, const Force& f) {
  return os << "Force(angular=[" << f.angular().transpose() << "], linear=[" << f.linear().transpose() << "])";
}

}  // namespace abdyn
