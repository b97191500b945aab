#include "abdyn/spatial/se3.hpp"

#include "abdyn/spatial/rotation.hpp"

namespace abdyn {

// The left Jacobian of SO(3) at w equals the right Jacobian at -w.
Eigen::Isometry3d expSE3(const Motion& twist) {
  Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
  T.linear() = expSO3(twist.angular());
  T.translation() = rightJacobianSO3(-twist.angular()) * twist.linear();
  return T;
}

Motion logSE3(const Eigen::Isometry3d& T) {
  const Vector3 w = logSO3(T.linear());
  return Motion(w, rightJacobianInverseSO3(-w) * T.translation());
}

}  // namespace abdyn
