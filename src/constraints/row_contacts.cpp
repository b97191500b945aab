#include "abdyn/constraints/row_contacts.hpp"

#include <algorithm>
#include <cmath>

namespace abdyn {
namespace {

// The candidate points of one shape in world coordinates; returns how many (at most kContactPointsPerGeometry).
int candidatePoints(const Geometry& g, const Plx& X_shape_world, const Vector3& up, Vector3* points) {
  const Matrix3 R = X_shape_world.E().transpose();  // shape axes in world coordinates
  const Vector3& origin = X_shape_world.r();
  switch (g.shape) {
    case ShapeType::Sphere:
      points[0] = origin - g.size[0] * up;
      return 1;
    case ShapeType::Box: {
      int n = 0;
      for (int c = 0; c < 8; ++c) {
        const Vector3 corner(c & 1 ? 0.5 : -0.5, c & 2 ? 0.5 : -0.5, c & 4 ? 0.5 : -0.5);
        points[n++] = origin + R * corner.cwiseProduct(g.size);
      }
      return n;
    }
    case ShapeType::Cylinder: {
      const double radius = g.size[0], half_length = 0.5 * g.size[1];
      const Vector3 axis = R.col(2);
      // Rim directions: the one pointing most downwards, then three more at 90 degree steps.
      Vector3 down = -(up - up.dot(axis) * axis);
      down = down.norm() > 1e-9 ? Vector3(down.normalized()) : Vector3(R.col(0));
      const Vector3 side = axis.cross(down);
      int n = 0;
      for (double end : {-half_length, half_length}) {
        const Vector3 centre = origin + end * axis;
        points[n++] = centre + radius * down;
        points[n++] = centre + radius * side;
        points[n++] = centre - radius * down;
        points[n++] = centre - radius * side;
      }
      return n;
    }
    case ShapeType::Mesh:
      return 0;
  }
  return 0;
}

}  // namespace

int addGroundContactRows(RowSet& rows, const Model& model, const Data& data, const Eigen::VectorXd& v,
                         const GroundContactSettings& settings, double h, std::int64_t key_base) {
  const Vector3 up = Vector3::UnitZ();
  Vector3 t1, t2;
  orthonormalComplement(up, t1, t2);
  Vector3 points[kContactPointsPerGeometry];
  int contacts = 0;
  const auto& geometries = model.geometries();
  for (int gi = 0; gi < static_cast<int>(geometries.size()); ++gi) {
    const Geometry& g = geometries[gi];
    if (g.role != GeometryRole::Collision || g.body == 0) continue;
    const int n = candidatePoints(g, g.X_geometry_body * data.X_world[g.body], up, points);
    for (int c = 0; c < n; ++c) {
      const Vector3& p = points[c];
      const double gap = p.dot(up) - settings.height;
      if (gap >= settings.margin) continue;
      const std::int64_t key = key_base + 3 * (static_cast<std::int64_t>(kContactPointsPerGeometry) * gi + c);
      const int normal_index = rows.size();
      ConstraintRow& normal = addLinearRow(rows, model, data, g.body, 0, p, up);
      normal.lo = 0.0;
      normal.unilateral = true;
      normal.error = gap;
      normal.target = std::min(unilateralTarget(gap, settings.erp, h), settings.max_push_velocity);
      const double approach = normal.J.dot(v);
      if (approach < -settings.restitution_threshold) {
        normal.target = std::max(normal.target, -settings.restitution * approach);
      }
      normal.key = key;
      for (int t = 0; t < 2; ++t) {
        ConstraintRow& friction = addLinearRow(rows, model, data, g.body, 0, p, t == 0 ? t1 : t2);
        friction.tie = normal_index;
        friction.mu = settings.mu;
        friction.key = key + 1 + t;
      }
      ++contacts;
    }
  }
  return contacts;
}

}  // namespace abdyn
