#include "constraints/shape_distance.hpp"

#include <algorithm>
#include <cmath>

namespace abdyn::internal {

bool localSignedDistance(const Geometry& g, const Vector3& l, double& distance, Vector3& n_l, Matrix3* N) {
  if (N) N->setZero();
  switch (g.shape) {
    case ShapeType::Sphere: {
      const double r = l.norm();
      distance = r - g.size[0];
      if (!(r > 1e-12)) {
        n_l = Vector3::UnitZ();
        return N == nullptr;
      }
      n_l = l / r;
      if (N) *N = (Matrix3::Identity() - n_l * n_l.transpose()) / r;
      return true;
    }
    case ShapeType::Box: {
      const Vector3 q = l.cwiseAbs() - 0.5 * g.size;
      const Vector3 sign = l.unaryExpr([](double c) { return c < 0.0 ? -1.0 : 1.0; });
      if ((q.array() > 0.0).any()) {  // outside: a face (one axis with q > 0), an edge (two) or a corner (three)
        const Vector3 outside = q.cwiseMax(0.0);
        distance = outside.norm();
        n_l = sign.cwiseProduct(outside) / distance;
        const Vector3 m = (q.array() > 0.0).cast<double>();
        if (N) *N = (Matrix3::Identity() - n_l * n_l.transpose()) * m.asDiagonal() / distance;
      } else {  // inside: the nearest face, whose normal does not turn
        Eigen::Index face = 0;
        distance = q.maxCoeff(&face);
        n_l = sign[face] * Vector3::Unit(face);
      }
      return true;
    }
    case ShapeType::Cylinder: {
      // Radial r, azimuthal phi = z x r (r turns by phi (phi . dl) / rho), axial z_s; excesses q_r, q_z.
      const double rho = l.head<2>().norm();
      const double q_r = rho - g.size[0], q_z = std::abs(l.z()) - 0.5 * g.size[1];
      const Vector3 r = rho > 1e-12 ? Vector3(l.x() / rho, l.y() / rho, 0.0) : Vector3::UnitX();
      const Vector3 z_s(0.0, 0.0, l.z() < 0.0 ? -1.0 : 1.0);
      const Vector3 phi = Vector3::UnitZ().cross(r);
      const bool outside = q_r > 0.0 || q_z > 0.0;
      const bool radial = outside ? q_r > 0.0 : q_r > q_z;  // r enters n_l
      if (N && ((!outside && std::abs(q_r - q_z) <= 1e-12) || (radial && !(rho > 1e-12)))) return false;
      if (!outside) {  // the nearer of side and cap
        distance = std::max(q_r, q_z);
        n_l = radial ? r : z_s;
        if (N && radial) *N = phi * phi.transpose() / rho;
        return true;
      }
      // The side (b = 0), the cap (a = 0) or the rim edge (both > 0: the normal from the nearest rim point).
      const double a = std::max(q_r, 0.0), b = std::max(q_z, 0.0);
      distance = std::hypot(a, b);
      n_l = (a * r + b * z_s) / distance;
      if (N) {
        Matrix3 moved = Matrix3::Zero();  // d(a r + b z_s) without a dr
        if (a > 0.0) moved += r * r.transpose();
        if (b > 0.0) moved(2, 2) = 1.0;
        *N = (Matrix3::Identity() - n_l * n_l.transpose()) * moved / distance;
        if (a > 0.0) *N += (a / (distance * rho)) * phi * phi.transpose();
      }
      return true;
    }
    case ShapeType::Mesh:
      return false;
  }
  return false;
}

}  // namespace abdyn::internal
