#include "abdyn/conventions/brax.hpp"

#include "abdyn/error.hpp"
#include "abdyn/spatial/quaternion.hpp"
#include "detail.hpp"

namespace abdyn::brax {

// A Brax Transform is stored exactly like MuJoCo's (xpos, xquat).
Transform fromAbdyn(const Plxb& T_P_C) {
  const mujoco::Pose p = mujoco::fromAbdyn(T_P_C);
  return {p.pos, p.quat};
}

Plxb toAbdyn(const Transform& T_P_C) { return mujoco::toAbdyn(mujoco::Pose{T_P_C.pos, T_P_C.rot}); }

Inertia linkInertiaFromAbdyn(const RigidBodyInertia& I) {
  return {Transform{I.com(), Vector4(1.0, 0.0, 0.0, 0.0)}, I.inertiaAboutCom(), I.mass()};
}

RigidBodyInertia linkInertiaToAbdyn(const Inertia& I) {
  const Matrix3 R = Quaternion::fromCoeffsWxyz(I.transform.rot).toRotationMatrix();
  try {
    return RigidBodyInertia(I.mass, I.transform.pos, R * I.i * R.transpose());
  } catch (const Error& e) {
    throw Error(std::string("Brax link inertia: ") + e.what());
  }
}

Inertia spatialInertiaFromAbdyn(const RigidBodyInertia& I) {
  return {Transform{I.firstMoment(), Vector4(1.0, 0.0, 0.0, 0.0)}, I.inertiaAboutOrigin(), I.mass()};
}

RigidBodyInertia spatialInertiaToAbdyn(const Inertia& I) {
  return conventions_detail::fromFirstMoment(I.mass, I.transform.pos, I.i, "Brax spatial");
}

Transform do_(const Transform& T, const Transform& t) { return fromAbdyn(toAbdyn(T) * toAbdyn(t)); }

Motion do_(const Transform& T, const Motion& m) { return fromAbdyn(toAbdyn(T).apply(toAbdyn(m))); }

Motion invDo(const Transform& T, const Motion& m) { return fromAbdyn(toAbdyn(T).applyInverse(toAbdyn(m))); }

Force do_(const Transform& T, const Force& f) { return fromAbdyn(toAbdyn(T).applyInverse(toAbdyn(f))); }

Inertia do_(const Transform& T, const Inertia& it) {
  // A body with its centre of mass at the origin of a frame with pose T, moved to P: c = p, Ic = R i R^T.
  const RigidBodyInertia I_P =
      toAbdyn(T).applyInverse(RigidBodyInertia::unchecked(it.mass, Vector3::Zero(), it.i));
  Inertia out = spatialInertiaFromAbdyn(I_P);
  out.transform.rot = T.rot;  // Brax carries T's rotation along; mul() does not read it
  return out;
}

Transform toLocal(const Transform& self, const Transform& t) { return fromAbdyn(toAbdyn(t).inverse() * toAbdyn(self)); }

Force mul(const Inertia& it, const Motion& m) {
  const Vector3& h = it.transform.pos;
  return {it.i * m.ang + h.cross(m.vel), it.mass * m.vel - h.cross(m.ang)};
}

StateLayout stateLayout() {
  StateLayout layout = mujoco::stateLayout();
  layout.library = "Brax";
  return layout;
}

}  // namespace abdyn::brax
