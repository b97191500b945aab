#include "constraints/shape_box.hpp"

#include <limits>

namespace abdyn::internal {

Vector3 frameHalfExtents(const Geometry& g, const Matrix3& R, const Vector3& half_local) {
  const Matrix3 A = R.cwiseAbs();
  switch (g.shape) {
    case ShapeType::Sphere:
      return Vector3::Constant(g.size[0]);
    case ShapeType::Box:
      return A * (0.5 * g.size);
    case ShapeType::Cylinder: {  // a disc of radius r normal to a spans r sqrt(1 - a_i^2) along axis i
      const Vector3 a = R.col(2);
      const Vector3 disc = (Vector3::Ones() - a.cwiseAbs2()).cwiseMax(0.0).cwiseSqrt();
      return g.size[0] * disc + 0.5 * g.size[1] * A.col(2);
    }
    case ShapeType::Capsule:
      return Vector3::Constant(g.size[0]) + 0.5 * g.size[1] * A.col(2);
    case ShapeType::Ellipsoid:  // support along e_i: sqrt(sum_j (R_ij s_j)^2)
      return (R * g.size.asDiagonal()).rowwise().norm();
    case ShapeType::Mesh:
      return A * half_local;
    case ShapeType::Plane:
      break;  // not collided (isCollidable)
  }
  return Vector3::Zero();
}


void hullBox(const ConvexHull& hull, Vector3& centre, Vector3& half) {
  Vector3 lo = Vector3::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
  for (const Vector3& p : hull.vertices) {
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  centre = 0.5 * (lo + hi);
  half = 0.5 * (hi - lo);
}

}  // namespace abdyn::internal
