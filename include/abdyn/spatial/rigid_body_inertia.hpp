#pragma once
/// @file
/// Spatial inertia of a rigid body in compact form: mass m, centre of mass c and rotational inertia
/// Ic about the centre of mass, all in the coordinates of one frame F. As a 6x6 matrix on motions in F
/// (angular first; Featherstone RBDA eq. 2.63):
///
///   I = [ Ic - m cx cx   m cx ]
///       [ -m cx          m 1  ]
///
/// Transforms between frames live in plx.hpp (Plx::apply / applyInverse) and cost a 3x3 rotation of Ic,
/// never a 6x6 product.

#include <string>

#include "abdyn/spatial/force.hpp"
#include "abdyn/spatial/motion.hpp"

namespace abdyn {

/// Describes what makes (mass, inertia about the centre of mass) physically invalid, or returns an
/// empty string when it is valid: non-finite numbers, negative mass, an inertia that is not symmetric,
/// not positive semi-definite (or not positive definite when require_positive_definite), or whose
/// principal moments violate the triangle inequality (I1 + I2 >= I3, relative tolerance 1e-6 of the
/// trace, so that values printed to six digits pass).
std::string describeInertiaViolation(double mass, const Vector3& com, const Matrix3& inertia_about_com,
                                     bool require_positive_definite = false);

/// The spatial inertia of a rigid body in some frame: mass m, centre of mass c and rotational inertia Ic
/// about c, both in that frame's coordinates; as a matrix, [Ic - m cx cx, m cx; -m cx, m 1] (angular first).
class RigidBodyInertia {
 public:
  /// The zero inertia (a massless body).
  RigidBodyInertia() : m_(0.0), c_(Vector3::Zero()), Ic_(Matrix3::Zero()) {}
  /// Validated construction; throws abdyn::Error naming the violation (see describeInertiaViolation).
  RigidBodyInertia(double mass, const Vector3& com, const Matrix3& inertia_about_com);

  /// Construction without validation, for values computed from valid inertias.
  static RigidBodyInertia unchecked(double mass, const Vector3& com, const Matrix3& inertia_about_com) {
    RigidBodyInertia I;
    I.m_ = mass;
    I.c_ = com;
    I.Ic_ = inertia_about_com;
    return I;
  }
  /// The zero inertia (a massless body).
  static RigidBodyInertia Zero() { return RigidBodyInertia(); }
  /// From the 6x6 matrix form; throws abdyn::Error if it is not the matrix of a valid rigid body.
  static RigidBodyInertia fromMatrix(const Matrix6& I);

  /// The mass m (kg).
  double mass() const { return m_; }
  /// The centre of mass c, in this frame's coordinates.
  const Vector3& com() const { return c_; }
  /// The rotational inertia Ic about the centre of mass, in this frame's axes.
  const Matrix3& inertiaAboutCom() const { return Ic_; }
  /// Rotational inertia about the frame origin: Ic - m cx cx (parallel-axis theorem).
  Matrix3 inertiaAboutOrigin() const {
    const Matrix3 cx = skew(c_);
    return Ic_ - m_ * cx * cx;
  }
  /// First moment of mass m c.
  Vector3 firstMoment() const { return m_ * c_; }

  /// The 6x6 matrix (angular first) mapping motions to forces in this frame.
  Matrix6 matrix() const {
    Matrix6 I;
    const Matrix3 mcx = m_ * skew(c_);
    I.topLeftCorner<3, 3>() = inertiaAboutOrigin();
    I.topRightCorner<3, 3>() = mcx;
    I.bottomLeftCorner<3, 3>() = -mcx;
    I.bottomRightCorner<3, 3>() = m_ * Matrix3::Identity();
    return I;
  }

  /// Momentum I * m: linear p = m (v - c x w) (mass times the centre-of-mass velocity),
  /// angular Ic w + c x p (about the frame origin).
  ABDYN_ALWAYS_INLINE Force operator*(const Motion& motion) const {
    const Vector3 p = m_ * (motion.linear() - c_.cross(motion.angular()));
    return Force(Ic_ * motion.angular() + c_.cross(p), p);
  }

  /// Kinetic energy 1/2 v . (I v) of a body moving with v.
  double kineticEnergy(const Motion& v) const {
    const Force h = (*this) * v;
    return 0.5 * (v.angular().dot(h.angular()) + v.linear().dot(h.linear()));
  }

  /// Inertia of the two bodies rigidly joined (both in the same frame).
  RigidBodyInertia operator+(const RigidBodyInertia& o) const {
    RigidBodyInertia sum(*this);
    sum += o;
    return sum;
  }
  /// Joins the body o rigidly to this one (both in the same frame).
  RigidBodyInertia& operator+=(const RigidBodyInertia& o) {
    const double m = m_ + o.m_;
    if (m == 0.0) {
      Ic_ += o.Ic_;
      return *this;
    }
    // About the joint centre of mass, each body adds its own Ic and a parallel-axis term; together
    // the two parallel-axis terms are (m1 m2 / m) (-dx dx) with d = c1 - c2.
    // -[d]x [d]x = |d|^2 1 - d d^T.
    const Vector3 d = c_ - o.c_;
    const double mu = m_ * o.m_ / m;
    Ic_ += o.Ic_;
    Ic_.noalias() -= (mu * d) * d.transpose();
    Ic_.diagonal().array() += mu * d.squaredNorm();
    c_ = (m_ * c_ + o.m_ * o.c_) / m;
    m_ = m;
    return *this;
  }

  /// Whether the 6x6 matrices agree to relative precision prec (Eigen's isApprox).
  bool isApprox(const RigidBodyInertia& o, double prec = 1e-12) const {
    return matrix().isApprox(o.matrix(), prec);
  }

 private:
  double m_;     ///< mass
  Vector3 c_;    ///< centre of mass in this frame
  Matrix3 Ic_;   ///< rotational inertia about the centre of mass, axes of this frame
};

/// Prints the mass, the centre of mass and the inertia about it.
std::ostream& operator<<(std::ostream& os, const RigidBodyInertia& I);

}  // namespace abdyn
