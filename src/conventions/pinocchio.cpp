#include "abdyn/conventions/pinocchio.hpp"

namespace abdyn::pinocchio {

StateLayout stateLayout() {
  StateLayout layout;
  layout.library = "Pinocchio";
  layout.quaternion_w_last = true;
  layout.free_velocity = FreeVelocityLayout::BodyLinearAngular;
  layout.continuous_as_cos_sin = true;
  return layout;
}

}  // namespace abdyn::pinocchio
