#pragma once
/// @file
/// Plxb: the right-associative Pluecker transform of Brax and the Tiny Differentiable Simulator.
///
/// A Plxb holds a pose: the rotation R = R_P_C and position p = p_P_C of a child frame C in a parent
/// frame P (Brax's Transform(pos, rot)). As an operator it maps spatial coordinates of P into C:
///
///   plxb(R, p) = [ R^T        0   ]  = plx(R^T, p)
///                [ -R^T px    R^T ]
///
/// Composition follows pose composition, Brax's order: T_P_C = T_P_B * T_B_C, i.e.
/// plxb(R1, p1) * plxb(R2, p2) = plxb(R1 R2, p1 + R1 p2). As matrices on motions that product is
/// plxb2.matrix() * plxb1.matrix(): the left factor acts first, hence "right-associative".
///
/// Unlike Brax's `do`, which maps a motion parent-to-child but a force child-to-parent, apply() maps
/// motions, forces and inertias the same way (P to C), and applyInverse() maps them all from C to P.

#include <ostream>

#include "abdyn/spatial/plx.hpp"

namespace abdyn {

/// T_P_C = plxb(R, p), the pose of a child frame C in a parent P, acting as the right-associative
/// Pluecker transform from P to C (see the file comment).
class Plxb {
 public:
  /// The identity pose.
  Plxb() : R_(Matrix3::Identity()), p_(Vector3::Zero()) {}
  /// Pose of C in P: rotation R_P_C (columns are C's axes in P) and position p_P_C.
  Plxb(const Matrix3& R_P_C, const Vector3& p_P_C) : R_(R_P_C), p_(p_P_C) {}

  /// The identity pose.
  static Plxb identity() { return Plxb(); }
  /// The same map as X_C_P = plx(E, r): plxb(E^T, r).
  static Plxb fromPlx(const Plx& X_C_P) { return Plxb(X_C_P.E().transpose(), X_C_P.r()); }
  /// The same map as a Plx, X_C_P = plx(R^T, p).
  Plx toPlx() const { return Plx(R_.transpose(), p_); }

  /// R_P_C: the columns are C's axes in P coordinates.
  const Matrix3& rotation() const { return R_; }
  /// p_P_C: C's origin in P coordinates.
  const Vector3& position() const { return p_; }

  /// P to C on a motion: [R^T w; R^T (v - p x w)].
  Motion apply(const Motion& m) const {
    return Motion(R_.transpose() * m.angular(), R_.transpose() * (m.linear() - p_.cross(m.angular())));
  }
  /// P to C on a force (the dual of the same map): [R^T (n - p x f); R^T f].
  Force apply(const Force& f) const {
    return Force(R_.transpose() * (f.angular() - p_.cross(f.linear())), R_.transpose() * f.linear());
  }
  /// C to P on a motion: [R w; R v + p x R w].
  Motion applyInverse(const Motion& m) const {
    const Vector3 w = R_ * m.angular();
    return Motion(w, R_ * m.linear() + p_.cross(w));
  }
  /// C to P on a force: [R n + p x R f; R f].
  Force applyInverse(const Force& f) const {
    const Vector3 lin = R_ * f.linear();
    return Force(R_ * f.angular() + p_.cross(lin), lin);
  }
  /// P to C on an inertia: c -> R^T (c - p), Ic -> R^T Ic R.
  RigidBodyInertia apply(const RigidBodyInertia& I) const { return toPlx().apply(I); }
  /// C to P on an inertia: c -> R c + p, Ic -> R Ic R^T.
  RigidBodyInertia applyInverse(const RigidBodyInertia& I) const { return toPlx().applyInverse(I); }

  /// T_P_C = T_P_B * T_B_C: plxb(R1 R2, p1 + R1 p2).
  Plxb operator*(const Plxb& T2) const { return Plxb(R_ * T2.R_, p_ + R_ * T2.p_); }
  /// T_C_P from T_P_C: plxb(R^T, -R^T p).
  Plxb inverse() const { return Plxb(R_.transpose(), -(R_.transpose() * p_)); }

  /// The 6x6 matrix on motions (P to C).
  Matrix6 matrix() const { return toPlx().matrix(); }
  /// The 6x6 matrix on forces (P to C), the inverse transpose of matrix().
  Matrix6 dualMatrix() const { return toPlx().dualMatrix(); }

  /// Whether the 6x6 matrices agree to relative precision prec (Eigen's isApprox).
  bool isApprox(const Plxb& o, double prec = 1e-12) const { return toPlx().isApprox(o.toPlx(), prec); }

 private:
  Matrix3 R_;  ///< orientation of the child in the parent, R_P_C
  Vector3 p_;  ///< origin of the child in parent coordinates, p_P_C
};

/// Prints "Plxb(R=[[...], [...], [...]], p=[...])".
inline std::ostream& operator<<(std::ostream& os, const Plxb& T) {
  return os << "Plxb(R=[[" << T.rotation().row(0) << "], [" << T.rotation().row(1) << "], [" << T.rotation().row(2)
            << "]], p=[" << T.position().transpose() << "])";
}

}  // namespace abdyn
