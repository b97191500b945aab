#pragma once
/// @file
/// The Tiny Differentiable Simulator's transform and inertia, mirrored without depending on it
/// (github.com/erwincoumans/tiny-differentiable-simulator, src/math/transform.hpp with its default
/// RIGHT_ASSOCIATIVE_TRANSFORMS, src/math/inertia.hpp).
///
///   Transform(translation p, rotation R)  a pose, R = R_P_C, p = p_P_C; composition T1 * T2 =
///                 (p1 + R1 p2, R1 R2): exactly abdyn's Plxb. apply(motion) maps P to C like
///                 Plxb::apply, but apply(force) computes X^T f, C to P (like Plxb::applyInverse), and
///                 apply_inverse(force) maps P to C.
///   RigidBodyInertia(mass, com, inertia)  despite its name, `com` holds the first moment h = m c, and
///                 `inertia` is about the frame origin (RBDL's convention).
///   Vectors are angular first (top = angular, bottom = linear).

#include "abdyn/spatial/plxb.hpp"

/// The Tiny Differentiable Simulator's transform and inertia, and conversions to and from abdyn's.
namespace abdyn::tds {

/// TDS's Transform: the pose T_P_C of a child frame C in a parent P.
struct Transform {
  Vector3 translation = Vector3::Zero();    ///< p_P_C
  Matrix3 rotation = Matrix3::Identity();   ///< R_P_C
};

/// TDS's RigidBodyInertia: mass, first moment and rotational inertia about the frame origin.
struct RigidBodyInertia {
  double mass = 0.0;  ///<kg
  Vector3 com = Vector3::Zero();            ///< first moment m c
  Matrix3 inertia = Matrix3::Zero();        ///< about the frame origin
};

/// The same pose.
inline Transform fromAbdyn(const Plxb& T_P_C) { return {T_P_C.position(), T_P_C.rotation()}; }
/// The same pose as a Plxb.
inline Plxb toAbdyn(const Transform& T_P_C) { return Plxb(T_P_C.rotation, T_P_C.translation); }

/// The same inertia: mass, first moment m c, inertia about the frame origin.
inline RigidBodyInertia fromAbdyn(const abdyn::RigidBodyInertia& I) {
  return {I.mass(), I.firstMoment(), I.inertiaAboutOrigin()};
}
/// c = com / mass, Ic = inertia + m cx cx. Throws abdyn::Error for a massless inertia with a nonzero
/// first moment or an invalid body.
abdyn::RigidBodyInertia toAbdyn(const RigidBodyInertia& I);

}  // namespace abdyn::tds
