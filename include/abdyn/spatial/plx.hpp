#pragma once
/// @file
/// Plx: the left-associative Pluecker transform of Featherstone (RBDA sec. 2.8) and RBDL.
///
/// X_B_A = plx(E, r) maps spatial coordinates of frame A into coordinates of frame B, where
///   E  rotates A-coordinates into B-coordinates (E = R_A_B^T, R_A_B being B's orientation in A),
///   r  is B's origin expressed in A.
/// It translates by r, then rotates by E. As a 6x6 matrix on motions (angular first):
///
///   X = [ E      0 ]      X* = X^-T = [ E  -E rx ]   (on forces)
///       [ -E rx  E ]                  [ 0   E    ]
///
/// Composition is left-associative like the matrices: X_C_A = X_C_B * X_B_A applies X_B_A first, and
/// plx(E1, r1) * plx(E2, r2) = plx(E1 E2, E2^T r1 + r2). One transform moves motions, forces and
/// inertias the same way (A to B with apply, B to A with applyInverse): forces through X*, inertias by
/// the congruence X* I X^-1.

#include <ostream>

#include <Eigen/Geometry>

#include "abdyn/spatial/articulated_body_inertia.hpp"
#include "abdyn/spatial/force.hpp"
#include "abdyn/spatial/motion.hpp"
#include "abdyn/spatial/rigid_body_inertia.hpp"

namespace abdyn {

/// X_B_A = plx(E, r), the left-associative Pluecker transform from frame A to frame B (see the file comment).
class Plx {
 public:
  /// The identity transform.
  Plx() : E_(Matrix3::Identity()), r_(Vector3::Zero()) {}
  /// plx(E, r): rotate A-coordinates by E into B, r = B's origin in A coordinates.
  Plx(const Matrix3& E, const Vector3& r) : E_(E), r_(r) {}

  /// The identity transform.
  static Plx identity() { return Plx(); }
  /// Featherstone's rot(E): a pure change of axes.
  static Plx rotation(const Matrix3& E) { return Plx(E, Vector3::Zero()); }
  /// Featherstone's xlt(r): a pure shift of origin to r.
  static Plx translation(const Vector3& r) { return Plx(Matrix3::Identity(), r); }
  /// X_B_A from the pose of B in A: orientation R_A_B (columns are B's axes in A) and position p_A_B.
  static Plx fromPose(const Matrix3& R_A_B, const Vector3& p_A_B) { return Plx(R_A_B.transpose(), p_A_B); }
  /// X_B_A from the pose T_A_B of B in A.
  static Plx fromPose(const Eigen::Isometry3d& T_A_B) { return fromPose(T_A_B.linear(), T_A_B.translation()); }

  /// E: rotates A-coordinates into B-coordinates (R_A_B^T).
  const Matrix3& E() const { return E_; }
  /// r: B's origin in A coordinates.
  const Vector3& r() const { return r_; }
  /// The pose of B in A that this X_B_A describes.
  Eigen::Isometry3d toPose() const {
    Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
    T.linear() = E_.transpose();
    T.translation() = r_;
    return T;
  }

  /// X m = [E w; E (v - r x w)].
  ABDYN_ALWAYS_INLINE Motion apply(const Motion& m) const {
    return Motion(E_ * m.angular(), E_ * (m.linear() - r_.cross(m.angular())));
  }
  /// X* f = [E (n - r x f); E f].
  ABDYN_ALWAYS_INLINE Force apply(const Force& f) const {
    return Force(E_ * (f.angular() - r_.cross(f.linear())), E_ * f.linear());
  }
  /// X^-1 m = [E^T w; E^T v + r x E^T w].
  ABDYN_ALWAYS_INLINE Motion applyInverse(const Motion& m) const {
    const Vector3 w = E_.transpose() * m.angular();
    return Motion(w, E_.transpose() * m.linear() + r_.cross(w));
  }
  /// X^T f = [E^T n + r x E^T f; E^T f].
  ABDYN_ALWAYS_INLINE Force applyInverse(const Force& f) const {
    const Vector3 lin = E_.transpose() * f.linear();
    return Force(E_.transpose() * f.angular() + r_.cross(lin), lin);
  }
  /// A point given in A coordinates, in B coordinates: E (p - r).
  Vector3 applyToPoint(const Vector3& p_A) const { return E_ * (p_A - r_); }
  /// A point given in B coordinates, in A coordinates: E^T p + r.
  Vector3 applyInverseToPoint(const Vector3& p_B) const { return E_.transpose() * p_B + r_; }
  /// X* I X^-1: mass unchanged, c -> E (c - r), Ic -> E Ic E^T.
  RigidBodyInertia apply(const RigidBodyInertia& I) const {
    return RigidBodyInertia::unchecked(I.mass(), E_ * (I.com() - r_), E_ * I.inertiaAboutCom() * E_.transpose());
  }
  /// X^T I X: mass unchanged, c -> E^T c + r, Ic -> E^T Ic E.
  RigidBodyInertia applyInverse(const RigidBodyInertia& I) const {
    return RigidBodyInertia::unchecked(I.mass(), E_.transpose() * I.com() + r_,
                                       E_.transpose() * I.inertiaAboutCom() * E_);
  }
  /// X* I X^-1 for an articulated-body inertia, in 3x3 blocks.
  ArticulatedBodyInertia apply(const ArticulatedBodyInertia& I) const;
  /// X^T I X for an articulated-body inertia, in 3x3 blocks.
  ArticulatedBodyInertia applyInverse(const ArticulatedBodyInertia& I) const;

  /// apply(m): the motion in B coordinates.
  Motion operator*(const Motion& m) const { return apply(m); }
  /// apply(f): the force in B coordinates.
  Force operator*(const Force& f) const { return apply(f); }

  /// X_C_A = X_C_B * X_B_A.
  Plx operator*(const Plx& X2) const { return Plx(E_ * X2.E_, X2.E_.transpose() * r_ + X2.r_); }
  /// X_A_B from X_B_A: plx(E^T, -E r).
  Plx inverse() const { return Plx(E_.transpose(), -(E_ * r_)); }

  /// The 6x6 matrix on motions.
  Matrix6 matrix() const {
    Matrix6 X = Matrix6::Zero();
    X.topLeftCorner<3, 3>() = E_;
    X.bottomLeftCorner<3, 3>() = -E_ * skew(r_);
    X.bottomRightCorner<3, 3>() = E_;
    return X;
  }
  /// The 6x6 matrix on forces, X* = X^-T = [E -E rx; 0 E].
  Matrix6 dualMatrix() const { return inverse().matrix().transpose(); }

  /// Whether the 6x6 matrices agree to relative precision prec (Eigen's isApprox).
  bool isApprox(const Plx& o, double prec = 1e-12) const { return matrix().isApprox(o.matrix(), prec); }

 private:
  /// R^T S R for a symmetric S: one triangle (27 + 18 multiplications), mirrored, so exactly symmetric.
  template <class Rotation, class Symmetric>
  static Matrix3 symmetricCongruence(const Rotation& R, const Symmetric& S);

  Matrix3 E_;  ///< rotation of A-coordinates into B-coordinates
  Vector3 r_;  ///< origin of B in A coordinates
};

ABDYN_ALWAYS_INLINE ArticulatedBodyInertia Plx::apply(const ArticulatedBodyInertia& I) const {
  // X* I X^-1 in 3x3 blocks, I = [A B; B^T C] symmetric. X = rot(E) xlt(r) shifts first, then rotates:
  //   shift    A' = A + B rx - rx B^T - rx C rx = A + B rx + (B rx)^T - rx C rx,  B' = B - rx C,  C' = C
  //   rotate   A'' = E A' E^T,  B'' = E B' E^T,  C'' = E C E^T
  // A', C and rx C rx are symmetric, so one triangle of each symmetric result is computed and mirrored,
  // as in applyInverse below: 192 multiplications against 243 for the products written out.
  const auto A = I.I_.topLeftCorner<3, 3>();
  const auto C = I.I_.bottomRightCorner<3, 3>();
  Matrix3 rxC, Brx;  // rx C column by column; B rx row by row, as b_k^T rx = (b_k x r)^T
  for (int k = 0; k < 3; ++k) {
    rxC.col(k) = r_.cross(C.col(k));
    Brx.row(k) = Vector3(I.I_.block<1, 3>(k, 3).transpose()).cross(r_).transpose();
  }
  Matrix3 A1;
  for (int c = 0; c < 3; ++c) {
    // Row c of rx C rx is (row c of rx C) x r; only its entries at and below the diagonal are used.
    const Vector3 rxCrx_c = Vector3(rxC.row(c).transpose()).cross(r_);
    for (int k = c; k < 3; ++k) A1(k, c) = A1(c, k) = A(k, c) + Brx(k, c) + Brx(c, k) - rxCrx_c[k];
  }
  const Matrix3 B1 = I.I_.topRightCorner<3, 3>() - rxC;
  const Matrix3 Et = E_.transpose();
  ArticulatedBodyInertia out;
  out.I_.topLeftCorner<3, 3>() = symmetricCongruence(Et, A1);
  out.I_.topRightCorner<3, 3>() = E_ * B1 * Et;
  out.I_.bottomLeftCorner<3, 3>() = out.I_.topRightCorner<3, 3>().transpose();
  out.I_.bottomRightCorner<3, 3>() = symmetricCongruence(Et, C);
  return out;
}

ABDYN_ALWAYS_INLINE ArticulatedBodyInertia Plx::applyInverse(const ArticulatedBodyInertia& I) const {
  // X^T I X in 3x3 blocks, I = [A B; B^T C] symmetric. On motions X = rot(E) xlt(r) with
  // rot(E) = [E 0; 0 E] and xlt(r) = [1 0; -rx 1], so X^T I X = xlt(r)^T (rot(E)^T I rot(E)) xlt(r):
  //   rotate back   A' = E^T A E,  B' = E^T B E,  C' = E^T C E
  //   shift         A'' = A' - B' rx - (B' rx)^T - rx C' rx,  B'' = B' + rx C',  C'' = C'
  // (xlt(r)^T = [1 rx; 0 1] as rx^T = -rx, and rx B'^T = -(B' rx)^T). A', C' and rx C' rx are
  // symmetric (M^T = M gives (E^T M E)^T = E^T M E and (rx M rx)^T = rx^T M rx^T = rx M rx), and so is
  // B' rx + (B' rx)^T: one triangle of each is computed and mirrored. Multiplications: 45 for each
  // symmetric rotation (S E: 27, one triangle of E^T (S E): 18), 54 for B', 18 each for rx C' and
  // B' rx, 12 for the triangle of rx C' rx: 192, against 243 for the products written out.
  const Matrix3 A = symmetricCongruence(E_, I.I_.topLeftCorner<3, 3>());
  const Matrix3 C = symmetricCongruence(E_, I.I_.bottomRightCorner<3, 3>());
  const Matrix3 B = E_.transpose() * I.I_.topRightCorner<3, 3>() * E_;
  Matrix3 rxC, Brx;  // rx C' column by column; B' rx row by row, as b_k^T rx = (b_k x r)^T
  for (int k = 0; k < 3; ++k) {
    rxC.col(k) = r_.cross(C.col(k));
    Brx.row(k) = Vector3(B.row(k).transpose()).cross(r_).transpose();
  }
  ArticulatedBodyInertia out;
  for (int c = 0; c < 3; ++c) {
    // Row c of rx C' rx is (row c of rx C') x r; only its entries at and below the diagonal are used.
    const Vector3 rxCrx_c = Vector3(rxC.row(c).transpose()).cross(r_);
    for (int k = c; k < 3; ++k) out.I_(k, c) = out.I_(c, k) = A(k, c) - Brx(k, c) - Brx(c, k) - rxCrx_c[k];
  }
  out.I_.topRightCorner<3, 3>() = B + rxC;
  out.I_.bottomLeftCorner<3, 3>() = out.I_.topRightCorner<3, 3>().transpose();
  out.I_.bottomRightCorner<3, 3>() = C;
  return out;
}

template <class Rotation, class Symmetric>
ABDYN_ALWAYS_INLINE Matrix3 Plx::symmetricCongruence(const Rotation& R, const Symmetric& S) {
  const Matrix3 T = S * R;
  Matrix3 out;
  for (int c = 0; c < 3; ++c) {
    for (int k = c; k < 3; ++k) out(k, c) = out(c, k) = R.col(k).dot(T.col(c));
  }
  return out;
}

/// Prints "Plx(E=[[...], [...], [...]], r=[...])".
inline std::ostream& operator<<(std::ostream& os, const Plx& X) {
  return os << "Plx(E=[[" << X.E().row(0) << "], [" << X.E().row(1) << "], [" << X.E().row(2) << "]], r=["
            << X.r().transpose() << "])";
}

}  // namespace abdyn
