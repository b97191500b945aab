#include "abdyn/conventions/mujoco.hpp"

#include "abdyn/spatial/quaternion.hpp"

namespace abdyn::mujoco {

Pose fromAbdyn(const Plxb& T_P_C) {
  return {T_P_C.position(), Quaternion::fromRotationMatrix(T_P_C.rotation()).coeffsWxyz()};
}

Plxb toAbdyn(const Pose& T_P_C) {
  return Plxb(Quaternion::fromCoeffsWxyz(T_P_C.quat).toRotationMatrix(), T_P_C.pos);
}

StateLayout stateLayout() {
  StateLayout layout;
  layout.library = "MuJoCo";
  layout.free_velocity = FreeVelocityLayout::WorldLinearBodyAngular;
  return layout;
}

}  // namespace abdyn::mujoco
