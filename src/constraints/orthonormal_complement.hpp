#pragma once
// The one way abdyn completes a unit vector to an orthonormal basis (contact tangents, loop-closure axes).

#include <Eigen/Core>

#include "abdyn/spatial/types.hpp"

namespace abdyn::internal {

/// t1, t2 with (n, t1, t2) orthonormal and right-handed (t2 = n x t1), for a unit vector n: n is crossed
/// with the coordinate axis it is least aligned with, so the product is never near zero.
inline void orthonormalComplement(const Vector3& n, Vector3& t1, Vector3& t2) {
  Eigen::Index smallest = 0;
  n.cwiseAbs().minCoeff(&smallest);
  t1 = n.cross(Vector3::Unit(smallest)).normalized();
  t2 = n.cross(t1);
}

}  // namespace abdyn::internal
