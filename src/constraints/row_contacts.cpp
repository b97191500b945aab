#include "abdyn/constraints/row_contacts.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "abdyn/constraints/broad_phase.hpp"
#include "abdyn/constraints/convex_distance.hpp"
#include "constraints/contact_manifold.hpp"
#include "constraints/shape_distance.hpp"
#include "internal/checks.hpp"

namespace abdyn {
namespace {

// A mesh offers the hull vertices within this distance of its furthest along `toward` (reduced to four).
constexpr double kHullBand = 0.01;

// Whether the shape goes through GJK/EPA (convex_distance.hpp) against other bodies' shapes.
bool collidedByGjk(const Geometry& g) { return g.shape == ShapeType::Mesh || g.shape == ShapeType::Capsule; }

// The candidate points of one shape in world coordinates; returns how many (at most kContactPointsPerGeometry).
// A sphere offers its centre with `inflation` = its radius (its surface point depends on the other shape);
// other shapes offer surface points and inflation 0. `toward` (unit) points at the other shape: a
// cylinder's first rim point on each cap lies furthest that way.
int candidatePoints(const Geometry& g, const Plx& X_shape_world, const Vector3& toward, Vector3* points,
                    double& inflation) {
  const Matrix3 R = X_shape_world.E().transpose();  // shape axes in world coordinates
  const Vector3& origin = X_shape_world.r();
  inflation = 0.0;
  switch (g.shape) {
    case ShapeType::Sphere:
      points[0] = origin;
      inflation = g.size[0];
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
      // Rim directions: the one pointing most towards the other shape, then three more at 90 degree steps.
      Vector3 out = toward - toward.dot(axis) * axis;
      out = out.norm() > 1e-9 ? Vector3(out.normalized()) : Vector3(R.col(0));
      const Vector3 side = axis.cross(out);
      int n = 0;
      for (double end : {-half_length, half_length}) {
        const Vector3 centre = origin + end * axis;
        points[n++] = centre + radius * out;
        points[n++] = centre + radius * side;
        points[n++] = centre - radius * out;
        points[n++] = centre - radius * side;
      }
      return n;
    }
    case ShapeType::Capsule: {  // the centres of its end spheres
      const Vector3 half = 0.5 * g.size[1] * R.col(2);
      points[0] = origin - half;
      points[1] = origin + half;
      inflation = g.size[0];
      return 2;
    }
    case ShapeType::Mesh:
      return g.mesh != nullptr ? internal::hullExtremePoints(g.mesh->hull, X_shape_world, toward, kHullBand, points) : 0;
    case ShapeType::Ellipsoid:  // not collided (isCollidable)
    case ShapeType::Plane:
      return 0;
  }
  return 0;
}

// Signed distance from world point p to shape g (negative inside) and the outward unit normal there
// (shape_distance.hpp); false for the kinds not collided.
bool signedDistance(const Geometry& g, const Plx& X_shape_world, const Vector3& p, double& distance, Vector3& normal) {
  Vector3 normal_local;
  if (!internal::localSignedDistance(g, X_shape_world.applyToPoint(p), distance, normal_local)) return false;
  normal = X_shape_world.E().transpose() * normal_local;
  return true;
}

// One contact: a normal row (body_a moving away from body_b along n is positive) and two friction rows; none
// (returns false) for a point GroundContactSettings::speculative_steps leaves out.
bool addContactRows(RowSet& rows, const Model& model, const Data& data, const Eigen::VectorXd& v, int body_a,
                    int body_b, const Vector3& point, const Vector3& n, double gap,
                    const GroundContactSettings& settings, double h, std::int64_t key) {
  Vector3 t1, t2;
  orthonormalComplement(n, t1, t2);
  // The three rows addLinearRow would build (bit for bit), in one walk up the bodies' paths.
  const Force f_world[3] = {Force(point.cross(n), n), Force(point.cross(t1), t1), Force(point.cross(t2), t2)};
  const int normal_index = addPairRows(rows, model, data, body_a, body_b, f_world, 3);
  ConstraintRow& normal = rows[normal_index];
  normal.lo = 0.0;
  normal.unilateral = true;
  normal.error = gap;
  normal.target = std::min(unilateralTarget(gap, settings.erp, h), settings.max_push_velocity);
  const double approach = normal.J.dot(v);
  if (gap > settings.speculative_gap && std::isfinite(settings.speculative_steps) &&
      gap > -settings.speculative_steps * h * approach) {
    rows.truncate(normal_index);
    return false;
  }
  if (approach < -settings.restitution_threshold) {
    normal.target = std::max(normal.target, -settings.restitution * approach);
  }
  normal.key = key;
  for (int t = 0; t < 2; ++t) {
    ConstraintRow& friction = rows[normal_index + 1 + t];
    friction.tie = normal_index;
    friction.mu = settings.mu;
    friction.key = key + 1 + t;
  }
  return true;
}

}  // namespace

bool isCollidable(const Geometry& g) {
  switch (g.shape) {
    case ShapeType::Sphere:
    case ShapeType::Box:
    case ShapeType::Cylinder:
    case ShapeType::Capsule:
      return true;
    case ShapeType::Mesh:
      return g.mesh != nullptr && !g.mesh->hull.vertices.empty();
    case ShapeType::Ellipsoid:
    case ShapeType::Plane:
      return false;
  }
  return false;
}

bool isStaticMeshShape(const Geometry& g, const GroundContactSettings& settings) {
  return g.role == GeometryRole::Collision && g.body == 0 && settings.world_shapes && g.shape == ShapeType::Mesh &&
         g.mesh != nullptr && !g.mesh->bvh.empty() && settings.geometry == ContactGeometry::StaticMeshes;
}

bool isContactShape(const Geometry& g, const GroundContactSettings& settings) {
  if (isStaticMeshShape(g, settings)) return true;
  return g.role == GeometryRole::Collision && (g.body != 0 || settings.world_shapes) && isCollidable(g) &&
         (g.shape != ShapeType::Mesh || settings.geometry != ContactGeometry::Primitives);
}

std::vector<std::pair<int, int>> excludedBodyPairs(const Model& model, const GroundContactSettings& settings) {
  std::vector<std::pair<int, int>> pairs;
  const auto add = [&](int a, int b) {
    if (a != b) pairs.emplace_back(std::min(a, b), std::max(a, b));
  };
  const auto bodyOf = [&](const std::string& name) {
    for (const Frame& f : model.frames()) {
      if (f.name == name) return f.body;
    }
    throw Error("abdyn::GroundContactSettings::excluded_pairs: model '" + model.name() + "' has no body or link named '" +
                name + "'");
  };
  for (const auto& [a, b] : settings.excluded_pairs) add(bodyOf(a), bodyOf(b));
  for (const auto& [a, b] : settings.excluded_body_pairs) {
    for (int body : {a, b}) {
      if (body < 0 || body >= model.nbodies()) {
        throw InvalidArgument("abdyn::GroundContactSettings::excluded_body_pairs: body " + std::to_string(body) +
                              " is out of range for model '" + model.name() + "' (valid: 0 to " +
                              std::to_string(model.nbodies() - 1) + ")");
      }
    }
    add(a, b);
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return pairs;
}

int addGroundContactRows(RowSet& rows, const Model& model, const Data& data, const Eigen::VectorXd& v,
                         const GroundContactSettings& settings, double h, std::int64_t key_base) {
  internal::checkData(model, data, "abdyn::addGroundContactRows");
  internal::checkWorldColumns(data, "abdyn::addGroundContactRows");
  const Vector3 up = Vector3::UnitZ();
  Vector3 points[kContactPointsPerGeometry];
  int contacts = 0;
  const auto& geometries = model.geometries();
  for (int gi = 0; gi < static_cast<int>(geometries.size()); ++gi) {
    const Geometry& g = geometries[gi];
    if (g.body == 0 || !isContactShape(g, settings)) continue;
    double inflation = 0.0;
    const int n = candidatePoints(g, g.X_geometry_body * data.X_body_world[g.body], -up, points, inflation);
    for (int c = 0; c < n; ++c) {
      const Vector3 p = points[c] - inflation * up;
      const double gap = p.dot(up) - settings.height;
      if (gap >= settings.margin) continue;
      contacts += addContactRows(rows, model, data, v, g.body, 0, p, up, gap, settings, h,
                                 key_base + 3 * (static_cast<std::int64_t>(kContactPointsPerGeometry) * gi + c));
    }
  }
  return contacts;
}

// The slide of each candidate point (row_contacts.hpp): with the body turning at w, a point p = origin + R x of
// the shape moves at v_body(p) = v_o + w x p. The sphere offers centre c minus radius up, which moves with c:
// slide w = w x (c - p). A cylinder's rim point e + radius u, with e = its cap's centre (on the body) and u
// built from the axis a alone (out = the unit part of t = -up normal to a, side = a x out; R's first column
// when the axis is vertical, a direction of the body), moves at v_body(e) + radius du with da = w x a:
//   d out = (1 - out out^T) (-(t . da) a - (t . a) da) / |t - (t . a) a|,   d side = da x out + a x d out,
// so slide w = radius (du - w x u). Box corners are points of the body.
GroundContactPoint groundContactPoint(const Model& model, const Data& data, std::int64_t key_offset) {
  internal::checkData(model, data, "abdyn::groundContactPoint");
  const auto& geometries = model.geometries();
  const std::int64_t point = key_offset / 3;
  const std::int64_t gi = point / kContactPointsPerGeometry;
  const int c = static_cast<int>(point % kContactPointsPerGeometry);
  if (key_offset < 0 || gi >= static_cast<std::int64_t>(geometries.size()) ||
      geometries[static_cast<std::size_t>(gi)].role != GeometryRole::Collision || geometries[static_cast<std::size_t>(gi)].body == 0) {
    throw InvalidArgument("abdyn::groundContactPoint: key offset " + std::to_string(key_offset) +
                          " names no candidate point of a collision shape");
  }
  const Geometry& g = geometries[static_cast<std::size_t>(gi)];
  const Vector3 up = Vector3::UnitZ();
  const Plx X_shape_world = g.X_geometry_body * data.X_body_world[g.body];
  Vector3 points[kContactPointsPerGeometry];
  double inflation = 0.0;
  const int n = candidatePoints(g, X_shape_world, -up, points, inflation);
  if (c >= n) {
    throw InvalidArgument("abdyn::groundContactPoint: key offset " + std::to_string(key_offset) + " names point " +
                          std::to_string(c) + " of geometry '" + g.name + "', which has " + std::to_string(n));
  }
  GroundContactPoint contact;
  contact.body = g.body;
  contact.p_world = points[c] - inflation * up;
  if (inflation > 0.0) {  // a sphere's or capsule's lowest point, below the centre c: slide w x (c - p)
    contact.slide = -skew(inflation * up);
  } else if (g.shape == ShapeType::Cylinder) {
    const Vector3 axis = X_shape_world.E().row(2).transpose();  // the shape's z axis in world coordinates
    const Vector3 t = -up;
    const Vector3 w = t - t.dot(axis) * axis;
    if (w.norm() > 1e-9) {
      const double radius = g.size[0];
      const Vector3 out = w.normalized(), side = axis.cross(out);
      const int k = c % 4;  // out, side, -out, -side (candidatePoints' order)
      const Vector3 u = k == 0 ? out : k == 1 ? side : k == 2 ? Vector3(-out) : Vector3(-side);
      for (int e = 0; e < 3; ++e) {
        const Vector3 omega = Vector3::Unit(e);
        const Vector3 da = omega.cross(axis);
        const Vector3 dw = -t.dot(da) * axis - t.dot(axis) * da;
        const Vector3 dout = (dw - out.dot(dw) * out) / w.norm();
        const Vector3 dside = da.cross(out) + axis.cross(dout);
        const Vector3 du = k == 0 ? dout : k == 1 ? dside : k == 2 ? Vector3(-dout) : Vector3(-dside);
        contact.slide.col(e) = radius * (du - omega.cross(u));
      }
    }
  }
  return contact;
}

int addBodyContactRows(RowSet& rows, const Model& model, const Data& data, const Eigen::VectorXd& v,
                       const GroundContactSettings& settings, double h, std::int64_t key_base) {
  BroadPhase broad_phase(model);
  return addBodyContactRows(rows, model, data, v, settings, h, key_base, broad_phase);
}

int addBodyContactRows(RowSet& rows, const Model& model, const Data& data, const Eigen::VectorXd& v,
                       const GroundContactSettings& settings, double h, std::int64_t key_base, BroadPhase& broad_phase) {
  internal::checkData(model, data, "abdyn::addBodyContactRows");
  internal::checkWorldColumns(data, "abdyn::addBodyContactRows");
  Vector3 points[kContactPointsPerGeometry];
  int contacts = 0;
  const auto& geometries = model.geometries();
  const std::int64_t ngeometries = static_cast<std::int64_t>(geometries.size());
  NarrowPhaseWorkspace& narrow_phase = broad_phase.narrowPhase();
  // Points of `from` against the surface of `to`; from's body is A (moving apart along the normal of `to`).
  const auto pointsAgainst = [&](int from_index, int to_index, std::int64_t key) {
    const Geometry& from = geometries[from_index];
    const Geometry& to = geometries[to_index];
    const Plx X_from = from.X_geometry_body * data.X_body_world[from.body];
    const Plx X_to = to.X_geometry_body * data.X_body_world[to.body];
    const Vector3 between = X_to.r() - X_from.r();
    const Vector3 toward = between.norm() > 1e-12 ? Vector3(between.normalized()) : Vector3::UnitZ();
    double inflation = 0.0;
    const int n = candidatePoints(from, X_from, toward, points, inflation);
    for (int c = 0; c < n; ++c) {
      double distance = 0.0;
      Vector3 normal;
      if (!signedDistance(to, X_to, points[c], distance, normal)) return;
      const double gap = distance - inflation;
      if (gap >= settings.margin) continue;
      contacts += addContactRows(rows, model, data, v, from.body, to.body, points[c] - inflation * normal, normal, gap,
                                 settings, h, key + 3 * c);
    }
  };
  for (const GeometryPair& pair : broad_phase.pairs(model, data, settings)) {
    const int i = pair.first, j = pair.second;
    const Geometry& a = geometries[i];
    const Geometry& b = geometries[j];
    const std::int64_t key = key_base + 6 * kContactPointsPerGeometry * (ngeometries * i + j);
    if (isStaticMeshShape(a, settings) || isStaticMeshShape(b, settings)) {
      const Geometry& mesh = isStaticMeshShape(a, settings) ? a : b;
      const Geometry& shape = &mesh == &a ? b : a;
      internal::MeshContactPoint manifold[internal::kManifoldPoints];
      const int n = internal::staticMeshManifold(shape, shape.X_geometry_body * data.X_body_world[shape.body], mesh,
                                                 mesh.X_geometry_body * data.X_body_world[mesh.body], settings.margin, manifold,
                                                 narrow_phase);
      for (int c = 0; c < n; ++c) {
        contacts += addContactRows(rows, model, data, v, shape.body, mesh.body, manifold[c].point, manifold[c].normal,
                                   manifold[c].gap, settings, h, key + 3 * c);
      }
      continue;
    }
    if (collidedByGjk(a) || collidedByGjk(b)) {
      const Plx X_a = a.X_geometry_body * data.X_body_world[a.body];
      const Plx X_b = b.X_geometry_body * data.X_body_world[b.body];
      const ConvexDistance d = convexDistance(a, X_a, b, X_b);
      if (d.distance >= settings.margin) continue;
      internal::ManifoldPoint manifold[internal::kManifoldPoints];
      const int n = internal::contactManifold(a, X_a, b, X_b, d, manifold, narrow_phase);
      for (int c = 0; c < n; ++c) {
        if (manifold[c].gap >= settings.margin) continue;
        // a moves apart from b against the normal: the row's direction is b's outward normal, -d.normal.
        contacts += addContactRows(rows, model, data, v, a.body, b.body, manifold[c].point, -d.normal, manifold[c].gap,
                                   settings, h, key + 3 * c);
      }
      continue;
    }
    // A sphere is tested by its centre against the other shape; boxes and cylinders both ways.
    if (a.shape == ShapeType::Sphere) {
      pointsAgainst(i, j, key);
    } else if (b.shape == ShapeType::Sphere) {
      pointsAgainst(j, i, key);
    } else {
      pointsAgainst(i, j, key);
      pointsAgainst(j, i, key + 3 * kContactPointsPerGeometry);
    }
  }
  return contacts;
}

std::string uncollidedShapes(const Model& model, const GroundContactSettings& settings) {
  // By shape kind (ShapeType's order): the collision shapes on moving bodies that are not collided.
  constexpr int kKinds = 7;
  constexpr const char* kNames[kKinds] = {"box", "cylinder", "sphere", "mesh", "capsule", "ellipsoid", "plane"};
  int missed[kKinds] = {0, 0, 0, 0, 0, 0, 0};
  int total = 0;
  std::vector<int> shapes(static_cast<std::size_t>(model.nbodies()), 0), collided(shapes.size(), 0);
  for (const Geometry& g : model.geometries()) {
    if (g.role != GeometryRole::Collision || g.body == 0) continue;
    ++total;
    ++shapes[static_cast<std::size_t>(g.body)];
    if (isContactShape(g, settings)) {
      ++collided[static_cast<std::size_t>(g.body)];
    } else {
      ++missed[static_cast<int>(g.shape)];
    }
  }
  std::string kinds;
  int uncollided = 0;
  for (int k = 0; k < kKinds; ++k) {
    if (missed[k] == 0) continue;
    uncollided += missed[k];
    kinds += (kinds.empty() ? "" : ", ") + std::to_string(missed[k]) + " " + kNames[k];
  }
  if (uncollided == 0) return "";
  std::string bodies;
  int without = 0;
  for (int i = 1; i < model.nbodies(); ++i) {
    if (shapes[static_cast<std::size_t>(i)] == 0 || collided[static_cast<std::size_t>(i)] > 0) continue;
    if (++without <= 8) bodies += (bodies.empty() ? "'" : ", '") + model.bodyName(i) + "'";
  }
  if (without > 8) bodies += " and " + std::to_string(without - 8) + " more";
  return "model '" + model.name() + "': " + std::to_string(uncollided) + " of its " + std::to_string(total) +
         " collision shapes are not collided by the contacts (" + kinds + ")" +
         (without > 0 ? "; bodies with no collidable shape, which pass through the ground and other bodies: " + bodies
                      : std::string());
}

}  // namespace abdyn
