#pragma once
/// @file
/// Brax's spatial objects, their operations and its state layout, mirrored without depending on Brax
/// (github.com/google/brax, brax/base.py: Transform, Motion, Force, Inertia and the functions that
/// Transform.do, Transform.inv_do and Transform.to_local dispatch to).
///
///   Transform(pos, rot)  a pose: C's origin and orientation in P, quaternion rot = (w, x, y, z).
///                        Composition do(t) = self * t follows poses (right-associative), like Plxb.
///   Motion(ang, vel), Force(ang, vel)   separate angular and linear fields; angular first in matrix().
///   Inertia(transform, i, mass)         two readings, told apart only by context:
///     link form     (a Link's inertia)  transform = pose of the inertial frame in the link (its pos is
///                   the centre of mass c), i = rotational inertia about c in the inertial frame's axes;
///     spatial form  (what do() returns, what mul() reads)  transform.pos = first moment m c,
///                   i = rotational inertia about the frame origin.
///
/// The trap: T.do maps a motion parent-to-child (like Plxb::apply) but a force child-to-parent (like
/// Plxb::applyInverse). inv_do exists only for motions. abdyn's apply always maps P to C.
///   Generalized state: MuJoCo's layout (mujoco.hpp): free joint q = (pos, quat w first),
///   v = [linear in the world; angular in the body].

#include "abdyn/conventions/mujoco.hpp"
#include "abdyn/spatial/plxb.hpp"

/// Brax's types and operations (Transform, Motion, Force, Inertia, do), and conversions to and from abdyn's.
namespace abdyn::brax {

/// Brax's Transform: the pose T_P_C of a child frame C in a parent P.
struct Transform {
  Vector3 pos = Vector3::Zero();  ///< p_P_C: C's origin in P coordinates
  Vector4 rot = Vector4(1.0, 0.0, 0.0, 0.0);  ///< (w, x, y, z)
};

/// Brax's Motion: a spatial motion as its angular and linear parts.
struct Motion {
  Vector3 ang = Vector3::Zero();  ///< angular velocity
  Vector3 vel = Vector3::Zero();  ///< linear velocity (of the point at the frame origin)
};

/// Brax's Force: a spatial force as its moment and force parts.
struct Force {
  Vector3 ang = Vector3::Zero();  ///< moment
  Vector3 vel = Vector3::Zero();  ///< force (Brax names the field vel)
};

/// Brax's Inertia: the link form (transform at the centre of mass, i = Ic) or the spatial form
/// (transform.pos = m c, i about the origin); the functions below say which they use.
struct Inertia {
  Transform transform;  ///<the link form's centre-of-mass frame, or the spatial form's (m c, rotation)
  Matrix3 i = Matrix3::Zero();  ///<rotational inertia (about the centre of mass or the origin, per form)
  double mass = 0.0;  ///<kg
};

/// The pose T_P_C (quaternion with w >= 0).
Transform fromAbdyn(const Plxb& T_P_C);
/// Throws abdyn::Error for a zero or non-finite quaternion; a non-unit one is normalised.
Plxb toAbdyn(const Transform& T_P_C);

/// The same motion, (ang, vel) = (angular, linear).
inline Motion fromAbdyn(const abdyn::Motion& m) { return {m.angular(), m.linear()}; }
/// The same motion as an abdyn::Motion.
inline abdyn::Motion toAbdyn(const Motion& m) { return abdyn::Motion(m.ang, m.vel); }
/// The same force, (ang, vel) = (moment, force).
inline Force fromAbdyn(const abdyn::Force& f) { return {f.angular(), f.linear()}; }
/// The same force as an abdyn::Force.
inline abdyn::Force toAbdyn(const Force& f) { return abdyn::Force(f.ang, f.vel); }

/// Link form: inertial frame at the centre of mass with the body's axes (rot = identity), i = Ic.
Inertia linkInertiaFromAbdyn(const RigidBodyInertia& I);
/// From the link form: c = transform.pos, Ic = R i R^T. Throws abdyn::Error for an invalid body.
RigidBodyInertia linkInertiaToAbdyn(const Inertia& I);
/// Spatial form: transform = (m c, identity), i = rotational inertia about the origin.
Inertia spatialInertiaFromAbdyn(const RigidBodyInertia& I);
/// From the spatial form: c = transform.pos / m, Ic = i + m cx cx (transform.rot is not read, as in
/// Brax's mul). Throws abdyn::Error for a massless inertia with a nonzero first moment or an invalid body.
RigidBodyInertia spatialInertiaToAbdyn(const Inertia& I);

// Brax's operations, with Brax's semantics (T = Transform(pos p, rot R) = T_P_C).

/// T.do(t): pose composition T * t = (p + R t.pos, R t.rot).
Transform do_(const Transform& T, const Transform& t);
/// T.do(m): a motion in P coordinates to C coordinates, [R^T w; R^T (v - p x w)].
Motion do_(const Transform& T, const Motion& m);
/// T.inv_do(m): a motion in C coordinates to P coordinates, [R w; R v + p x R w].
Motion invDo(const Transform& T, const Motion& m);
/// T.do(f): a force in C coordinates to P coordinates (the opposite way to motions), [R n + p x R f; R f].
Force do_(const Transform& T, const Force& f);
/// T.do(it): reads it.i as the rotational inertia about the centre of mass, placed at T (it.transform is
/// not read), and returns the spatial form in P: transform = (m p, T.rot), i = R i R^T + m (|p|^2 1 - p p^T).
Inertia do_(const Transform& T, const Inertia& it);
/// self.to_local(t): self expressed in t's frame, t^-1 * self = (R_t^T (pos - t.pos), t.rot^-1 rot).
Transform toLocal(const Transform& self, const Transform& t);
/// it.mul(m) on the spatial form: [i w + h x v; m v - h x w] with h = it.transform.pos.
Force mul(const Inertia& it, const Motion& m);

/// Brax's (MuJoCo's) state layout.
StateLayout stateLayout();
/// A state of `model` in Brax's layout; `order` names the joints in Brax's order (empty: abdyn's).
inline State stateFromAbdyn(const Model& model, const State& s, const JointOrder& order = {}) {
  return abdyn::stateFromAbdyn(model, s, stateLayout(), order);
}
/// The inverse of stateFromAbdyn: a state in this library's layout and `order` as abdyn's state.
inline State stateToAbdyn(const Model& model, const State& s, const JointOrder& order = {}) {
  return abdyn::stateToAbdyn(model, s, stateLayout(), order);
}

}  // namespace abdyn::brax
