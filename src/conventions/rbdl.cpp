#include "abdyn/conventions/rbdl.hpp"

#include "detail.hpp"

namespace abdyn::rbdl {

RigidBodyInertia toAbdyn(const SpatialRigidBodyInertia& I) {
  return conventions_detail::fromFirstMoment(I.m, I.h, I.I, "RBDL");
}

StateLayout stateLayout() {
  StateLayout layout;
  layout.library = "RBDL";
  layout.quaternion_w_last = true;
  layout.quaternion_w_at_end_of_q = true;
  layout.free_velocity = FreeVelocityLayout::WorldLinearBodyAngular;
  return layout;
}

}  // namespace abdyn::rbdl
