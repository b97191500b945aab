#pragma once
/// @file
/// Articulated-body inertia (Featherstone RBDA ch. 7): the symmetric 6x6 map, angular first, from the
/// spatial acceleration of a handle body to the force needed to impart it, with the rest of its
/// subtree free to move. Unlike a rigid-body inertia it has no compact (m, c, Ic) form, so it is held
/// as a matrix; it is moved between frames by Plx::apply / applyInverse in block form.

#include "abdyn/spatial/rigid_body_inertia.hpp"

namespace abdyn {

/// An articulated-body inertia IA: symmetric 6x6, angular first, in the coordinates of the handle body
/// (see the file comment).
class ArticulatedBodyInertia {
 public:
  /// The zero inertia.
  ArticulatedBodyInertia() : I_(Matrix6::Zero()) {}
  /// The articulated inertia of a body with no children is its rigid-body inertia.
  explicit ArticulatedBodyInertia(const RigidBodyInertia& I) : I_(I.matrix()) {}
  /// From a symmetric 6x6 matrix (angular first); throws abdyn::Error if it is not symmetric or finite.
  static ArticulatedBodyInertia fromMatrix(const Matrix6& I);

  /// From a matrix known to be symmetric (computed from valid inertias), without checks.
  static ArticulatedBodyInertia fromMatrixUnchecked(const Matrix6& I) {
    ArticulatedBodyInertia A;
    A.I_ = I;
    return A;
  }

  /// The zero inertia.
  static ArticulatedBodyInertia Zero() { return ArticulatedBodyInertia(); }

  /// The symmetric 6x6 matrix, angular first.
  const Matrix6& matrix() const { return I_; }

  /// IA a: the force that imparts the acceleration a to the handle (same frame).
  Force operator*(const Motion& a) const { return Force(I_ * a.vector()); }

  /// Adds an inertia in the same frame.
  ArticulatedBodyInertia& operator+=(const ArticulatedBodyInertia& o) {
    I_ += o.I_;
    return *this;
  }
  /// Adds a rigid-body inertia in the same frame.
  ArticulatedBodyInertia& operator+=(const RigidBodyInertia& o) {
    I_ += o.matrix();
    return *this;
  }
  /// The sum of two inertias in the same frame.
  ArticulatedBodyInertia operator+(const ArticulatedBodyInertia& o) const {
    ArticulatedBodyInertia sum(*this);
    sum += o;
    return sum;
  }

  /// I - U U^T / d: what remains of the inertia felt through a one-DoF joint with U = I S, d = S^T I S.
  void subtractRankOne(const Vector6& U, double inverse_d) { I_.noalias() -= (inverse_d * U) * U.transpose(); }

  /// Whether the matrices agree to relative precision prec (Eigen's isApprox).
  bool isApprox(const ArticulatedBodyInertia& o, double prec = 1e-12) const { return I_.isApprox(o.I_, prec); }

 private:
  friend class Plx;
  Matrix6 I_;  ///< symmetric, angular first
};

}  // namespace abdyn
