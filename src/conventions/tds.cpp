#include "abdyn/conventions/tds.hpp"

#include "detail.hpp"

namespace abdyn::tds {

abdyn::RigidBodyInertia toAbdyn(const RigidBodyInertia& I) {
  return conventions_detail::fromFirstMoment(I.mass, I.com, I.inertia, "Tiny Differentiable Simulator");
}

}  // namespace abdyn::tds
