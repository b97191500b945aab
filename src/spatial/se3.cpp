#include "abdyn/spatial/se3.hpp"

#include "abdyn/spatial/rotation.hpp"
#include "spatial/passes.hpp"

namespace abdyn {

Eigen::Isometry3d expSE3(const Motion& twist) {
  Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
  T.linear() = expSO3(twist.angular());
  T.translation() = internal::leftJacobianSO3Times(twist.angular(), twist.linear());
  return T;
}

// The left Jacobian of SO(3) at w equals the right Jacobian at -w.
Motion logSE3(const Eigen::Isometry3d& T) {
  const Vector3 w = logSO3(T.linear());
  return Motion(w, rightJacobianInverseSO3(-w) * T.translation());
}

}  // namespace abdyn
