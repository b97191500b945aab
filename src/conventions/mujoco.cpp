#include "abdyn/conventions/mujoco.hpp"

#include "abdyn/spatial/quaternion.hpp"

namespace abdyn::mujoco {

Pose fromAbdyn(const Plxb& T_P_C) {
  return {T_P_C.position(), Quaternion::fromRotationMatrix(T_P_C.rotation()).coeffsWxyz()};
}

Plxb toAbdyn(const Pose& T_P_C) {
  return Plxb(Quaternion::fromCoeffsWxyz(T_P_C.quat).toRotationMatrix(), T_P_C.pos);
}

Vector6 xfrcAppliedFromAbdyn(const Plx& X_body_world, const Vector3& com_body, const Force& f_body) {
  const Force f_world = X_body_world.applyInverse(f_body);  // about the world origin
  const Vector3 com_world = X_body_world.applyInverseToPoint(com_body);
  Vector6 xfrc;
  xfrc << f_world.linear(), f_world.angular() - com_world.cross(f_world.linear());
  return xfrc;
}

Force xfrcAppliedToAbdyn(const Plx& X_body_world, const Vector3& com_body, const Vector6& xfrc) {
  const Vector3 force = xfrc.head<3>();
  const Vector3 com_world = X_body_world.applyInverseToPoint(com_body);
  return X_body_world.apply(Force(Vector3(xfrc.tail<3>()) + com_world.cross(force), force));
}

StateLayout stateLayout() {
  StateLayout layout;
  layout.library = "MuJoCo";
  layout.free_velocity = FreeVelocityLayout::WorldLinearBodyAngular;
  return layout;
}

}  // namespace abdyn::mujoco
