#define BOOST_TEST_MODULE fcl_contacts
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <fcl/geometry/shape/box.h>
#include <fcl/geometry/shape/sphere.h>
#include <fcl/narrowphase/collision.h>
#include <fcl/narrowphase/distance.h>

#include "abdyn/abdyn.hpp"
#include "fcl_convex.hpp"

// abdyn's narrow phase (convexDistance, include/abdyn/constraints/convex_distance.hpp) against FCL 0.7's
// public entry points, fcl::collide with contacts and fcl::distance with nearest points, on the convex hulls
// of three mesh files read by abdyn's readers (examples/mesh_feet/foot.obj, a faceted sphere;
// tests/models/mjcf/meshes/lblock.stl, an L-shaped prism; tests/models/mjcf/meshes/wedge.obj) against a
// box, a sphere and each other, 10^4 random poses per pair kind (fixed seeds; 10^3 under
// AddressSanitizer, or N with `-- --poses N`).
//   - Poses apart: the distance to 1e-6 m; the witness points to 1e-6 m along the normal (across it they are
//     unique only where the nearest features are not parallel: where FCL's point differs from abdyn's, it must
//     lie on the same supporting plane of its shape, on the shape's surface).
//   - Poses overlapping: the depth to 1e-6 m and the contact normal to 1e-6 rad against FCL's signed distance
//     (fcl::distance with enable_signed_distance: libccd's EPA); and against exact computations: two polytopes
//     overlap by the least overlap of their projections on the separating-axis candidates (face normals of
//     either, cross products of an edge of each), to 1e-9 m, whose direction is the normal where it is the
//     only deepest one; a sphere whose centre is inside the hull, by its radius plus the centre's depth below
//     the nearest face, whose normal is the contact normal (centre outside: the radius minus the centre's
//     distance to the hull). fcl::collide's contacts are not the least penetration (its default answers by
//     libccd's MPR, off by centimetres on these shapes; its own GJK/EPA, GST_INDEP, disagrees more): their
//     largest differences from the exact depth are reported, not checked.
// Hulls against a plane: tests/test_convex_distance.cpp (closed form, and FCL's half-space contact).

using abdyn::Geometry;
using abdyn::Plx;
using abdyn::ShapeType;
using abdyn::Vector3;

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr int kDefaultPoses = 1000;  // the sanitizer build's time budget
#else
constexpr int kDefaultPoses = 10000;
#endif

int poses() {
  const auto& suite = boost::unit_test::framework::master_test_suite();
  for (int k = 1; k + 1 < suite.argc; ++k) {
    if (std::string(suite.argv[k]) == "--poses") return std::max(1, std::atoi(suite.argv[k + 1]));
  }
  return kDefaultPoses;
}

Geometry meshFile(const std::string& name, const std::string& path) {
  Geometry g;
  g.name = name;
  g.shape = ShapeType::Mesh;
  g.mesh = abdyn::makeMeshShape(abdyn::readMesh(std::string(ABDYN_SOURCE_DIR) + "/" + path), Vector3::Ones(), 0, name);
  return g;
}

std::vector<Geometry> testMeshes() {
  return {meshFile("foot", "examples/mesh_feet/foot.obj"), meshFile("lblock", "tests/models/mjcf/meshes/lblock.stl"),
          meshFile("wedge", "tests/models/mjcf/meshes/wedge.obj")};
}

Geometry primitive(ShapeType shape, const Vector3& size) {
  Geometry g;
  g.name = shape == ShapeType::Box ? "box" : shape == ShapeType::Sphere ? "sphere" : "plane";
  g.shape = shape;
  g.size = size;
  return g;
}

std::shared_ptr<fcl::CollisionGeometry<double>> fclShape(const Geometry& g) {
  if (g.shape == ShapeType::Box) return std::make_shared<fcl::Box<double>>(g.size);
  if (g.shape == ShapeType::Sphere) return std::make_shared<fcl::Sphere<double>>(g.size[0]);
  return abdyn::test::fclConvex(g.mesh->hull);
}

// A random pose: X_shape_world for abdyn, T_world_shape for FCL; the shape's centre within `spread` of the
// world origin along each axis.
struct Pose {
  Plx X_shape_world;
  fcl::Transform3<double> T_world_shape;
};

Pose randomPose(std::mt19937& rng, const Vector3& centre, double spread) {
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> u(-spread, spread);
  const Eigen::Quaterniond q = Eigen::Quaterniond(normal(rng), normal(rng), normal(rng), normal(rng)).normalized();
  const Vector3 p(u(rng), u(rng), u(rng));
  Pose pose;
  // The mesh's hull centred on p (lblock.stl and wedge.obj lie off their own origins).
  pose.T_world_shape = fcl::Transform3<double>::Identity();
  pose.T_world_shape.linear() = q.toRotationMatrix();
  pose.T_world_shape.translation() = p - q.toRotationMatrix() * centre;
  pose.X_shape_world = Plx::fromPose(q.toRotationMatrix(), pose.T_world_shape.translation());
  return pose;
}

Vector3 hullCentre(const Geometry& g) {
  if (g.shape != ShapeType::Mesh) return Vector3::Zero();
  Vector3 c = Vector3::Zero();
  for (const Vector3& v : g.mesh->hull.vertices) c += v;
  return c / static_cast<double>(g.mesh->hull.vertices.size());
}

// The largest distance of the shape's points from hullCentre.
double radius(const Geometry& g) {
  if (g.shape == ShapeType::Sphere) return g.size[0];
  if (g.shape == ShapeType::Box) return 0.5 * g.size.norm();
  double r = 0.0;
  for (const Vector3& v : g.mesh->hull.vertices) r = std::max(r, (v - hullCentre(g)).norm());
  return r;
}

// A polytope (a hull, or a box as its 8 corners, 6 faces, 12 edges) in world coordinates.
struct Polytope {
  std::vector<Vector3> vertices, normals, edges;
  std::vector<double> offsets;
};

Polytope worldPolytope(const Geometry& g, const fcl::Transform3<double>& T) {
  Polytope p;
  const Eigen::Matrix3d R = T.linear();
  if (g.shape == ShapeType::Box) {
    for (int k = 0; k < 8; ++k) {
      p.vertices.push_back(T * Vector3(k & 1 ? 0.5 : -0.5, k & 2 ? 0.5 : -0.5, k & 4 ? 0.5 : -0.5).cwiseProduct(g.size));
    }
    for (int a = 0; a < 3; ++a) {
      p.edges.push_back(R.col(a));
      for (double s : {-1.0, 1.0}) {
        p.normals.push_back(s * R.col(a));
        p.offsets.push_back(s * R.col(a).dot(T.translation()) + 0.5 * g.size[a]);
      }
    }
    return p;
  }
  const abdyn::ConvexHull& hull = g.mesh->hull;
  for (const Vector3& v : hull.vertices) p.vertices.push_back(T * v);
  for (std::size_t f = 0; f < hull.faces.size(); ++f) {
    const Vector3 n = R * hull.normals[f];
    p.normals.push_back(n);
    p.offsets.push_back(n.dot(T * hull.vertices[static_cast<std::size_t>(hull.faces[f][0])]));
    const auto& face = hull.faces[f];
    for (std::size_t k = 0; k < face.size(); ++k) {  // each edge once: from its smaller vertex index
      if (face[k] > face[(k + 1) % face.size()]) continue;
      p.edges.push_back(p.vertices[static_cast<std::size_t>(face[(k + 1) % face.size()])] -
                        p.vertices[static_cast<std::size_t>(face[k])]);
    }
  }
  return p;
}

// The exact penetration depth of two overlapping polytopes: the least overlap of their projections over the
// separating-axis candidates (a non-positive overlap on some axis: they do not overlap, depth 0), with the
// direction B leaves A along (abdyn's normal, from A toward B) and whether that direction is the only one: the
// least overlap along any candidate at more than 1e-6 rad from it exceeds it by more than 1e-9 m.
struct AxisDepth {
  double depth = HUGE_VAL;
  Vector3 normal = Vector3::Zero();
  bool unique = false;
};

AxisDepth separatingAxisDepth(const Polytope& a, const Polytope& b) {
  std::vector<std::pair<double, Vector3>> overlaps;
  const auto axis = [&](const Vector3& d) {
    double lo_a = HUGE_VAL, hi_a = -HUGE_VAL, lo_b = HUGE_VAL, hi_b = -HUGE_VAL;
    for (const Vector3& v : a.vertices) lo_a = std::min(lo_a, v.dot(d)), hi_a = std::max(hi_a, v.dot(d));
    for (const Vector3& v : b.vertices) lo_b = std::min(lo_b, v.dot(d)), hi_b = std::max(hi_b, v.dot(d));
    if (hi_a - lo_b <= hi_b - lo_a) {
      overlaps.emplace_back(hi_a - lo_b, d);
    } else {
      overlaps.emplace_back(hi_b - lo_a, -d);
    }
  };
  for (const Vector3& n : a.normals) axis(n);
  for (const Vector3& n : b.normals) axis(n);
  for (const Vector3& ea : a.edges) {
    for (const Vector3& eb : b.edges) {
      const Vector3 d = ea.cross(eb);
      if (d.norm() > 1e-9 * ea.norm() * eb.norm()) axis(d.normalized());
    }
  }
  AxisDepth best;
  for (const auto& [overlap, d] : overlaps) {
    if (overlap < best.depth) {
      best.depth = overlap;
      best.normal = d;
    }
  }
  double runner_up = HUGE_VAL;
  for (const auto& [overlap, d] : overlaps) {
    if (std::atan2(d.cross(best.normal).norm(), d.dot(best.normal)) > 1e-6) runner_up = std::min(runner_up, overlap);
  }
  best.unique = runner_up > best.depth + 1e-9;
  best.depth = std::max(best.depth, 0.0);
  return best;
}

// How far p lies outside the polytope's surface (positive outside, negative inside).
double surfaceOffset(const Polytope& p, const Vector3& x) {
  double outside = -HUGE_VAL;
  for (std::size_t f = 0; f < p.normals.size(); ++f) outside = std::max(outside, p.normals[f].dot(x) - p.offsets[f]);
  return outside;
}

double angleBetween(const Vector3& a, const Vector3& b) { return std::atan2(a.cross(b).norm(), a.dot(b)); }

struct Tally {
  int apart = 0, overlapping = 0, coincident = 0, exact = 0, normals = 0;
  double distance = 0.0, along = 0.0, depth = 0.0, angle = 0.0, exact_depth = 0.0, exact_angle = 0.0;
  double mpr_depth = 0.0, indep_depth = 0.0;  // fcl::collide's, reported
};

// abdyn against FCL and the exact depths on `count` random poses of mesh a against b (a hull, a box or a sphere).
Tally compare(const Geometry& a, const Geometry& b, int count, std::uint32_t seed) {
  const auto fa = fclShape(a), fb = fclShape(b);
  const Vector3 ca = hullCentre(a), cb = hullCentre(b);
  const bool polytope = b.shape != ShapeType::Sphere;
  // Centres within 0.8 of the sum of the radii along each axis: between 15% and 85% of the poses overlap.
  const double spread = 0.8 * (radius(a) + radius(b));
  std::mt19937 rng(seed);
  Tally t;
  for (int k = 0; k < count; ++k) {
    const Pose pa = randomPose(rng, ca, spread), pb = randomPose(rng, cb, spread);
    const abdyn::ConvexDistance mine = abdyn::convexDistance(a, pa.X_shape_world, b, pb.X_shape_world);
    const fcl::CollisionObject<double> oa(fa, pa.T_world_shape), ob(fb, pb.T_world_shape);
    const Polytope A = worldPolytope(a, pa.T_world_shape);
    // FCL's signed distance: GJK apart, libccd's EPA overlapping (which aborts on an assertion for some poses of a
    // sphere inside a hull: those are checked against the exact depth only); nearest points in world coordinates.
    const bool fcl_depth = polytope || mine.distance > 0.0;
    fcl::DistanceRequest<double> request(true);
    request.enable_signed_distance = true;
    request.distance_tolerance = 1e-12;
    fcl::DistanceResult<double> result;
    if (fcl_depth) fcl::distance(&oa, &ob, request, result);
    const Vector3 p1 = result.nearest_points[0], p2 = result.nearest_points[1];
    const double error = std::abs(mine.distance - result.min_distance);
    BOOST_TEST((!fcl_depth || error <= 1e-6), a.name << "-" << b.name << " pose " << k << ": distance " << mine.distance
                                                    << " m, FCL " << result.min_distance << " m");
    if (mine.distance > 0.0) {
      ++t.apart;
      t.distance = std::max(t.distance, error);
      const double along = std::max(std::abs(mine.normal.dot(p1 - mine.point_a)), std::abs(mine.normal.dot(p2 - mine.point_b)));
      t.along = std::max(t.along, along);
      BOOST_TEST(along <= 1e-6, a.name << "-" << b.name << " pose " << k << ": witness points " << along
                                       << " m apart along the normal");
      BOOST_TEST(std::abs(surfaceOffset(A, p1)) <= 1e-6, a.name << "-" << b.name << " pose " << k << ": FCL's point off "
                                                                 << a.name << "'s surface");
      BOOST_TEST(std::abs(surfaceOffset(A, mine.point_a)) <= 1e-9);
      if ((p1 - mine.point_a).norm() <= 1e-6 && (p2 - mine.point_b).norm() <= 1e-6) ++t.coincident;
      continue;
    }
    ++t.overlapping;
    if (fcl_depth) t.depth = std::max(t.depth, error);
    // FCL's normal from its witness points (A's minus B's) where they are 1 mm apart or more (their rounding,
    // ~1e-10 m, then turns it by < 1e-6 rad).
    if (fcl_depth && (p1 - p2).norm() >= 1e-3) {
      ++t.normals;
      t.angle = std::max(t.angle, angleBetween(mine.normal, p1 - p2));
      BOOST_TEST(angleBetween(mine.normal, p1 - p2) <= 1e-6, a.name << "-" << b.name << " pose " << k << ": normals "
                                                                    << angleBetween(mine.normal, p1 - p2) << " rad apart");
    }
    // The exact depth and normal.
    AxisDepth exact;
    if (polytope) {
      exact = separatingAxisDepth(A, worldPolytope(b, pb.T_world_shape));
    } else {  // a sphere: its centre against the hull
      const Vector3 c = pb.T_world_shape.translation();
      const double outside = surfaceOffset(A, c);
      if (outside <= 0.0) {  // inside: out through the nearest face
        std::vector<double> depths;
        for (std::size_t f = 0; f < A.normals.size(); ++f) depths.push_back(A.offsets[f] - A.normals[f].dot(c));
        const auto f = static_cast<std::size_t>(std::min_element(depths.begin(), depths.end()) - depths.begin());
        exact.depth = b.size[0] + depths[f];
        exact.normal = A.normals[f];
        std::sort(depths.begin(), depths.end());
        exact.unique = depths.size() > 1 && depths[1] > depths[0] + 1e-9;
      } else {
        const Geometry point = primitive(ShapeType::Sphere, Vector3::Zero());
        exact.depth = b.size[0] - abdyn::convexDistance(a, pa.X_shape_world, point, pb.X_shape_world).distance;
      }
    }
    const double exact_error = std::abs(-mine.distance - exact.depth);
    t.exact_depth = std::max(t.exact_depth, exact_error);
    BOOST_TEST(exact_error <= 1e-9, a.name << "-" << b.name << " pose " << k << ": depth " << -mine.distance
                                           << " m, exact " << exact.depth << " m");
    if (exact.unique) {
      ++t.exact;
      const double angle = angleBetween(mine.normal, exact.normal);
      t.exact_angle = std::max(t.exact_angle, angle);
      BOOST_TEST(angle <= 1e-6, a.name << "-" << b.name << " pose " << k << ": normal " << angle << " rad off the exact one");
    }
    // fcl::collide's contacts, reported only (see the top), on every tenth pose.
    if (exact.depth < 1e-9 || k % 10 != 0) continue;
    for (const fcl::GJKSolverType solver : {fcl::GST_LIBCCD, fcl::GST_INDEP}) {
      fcl::CollisionRequest<double> contact_request(1, true);
      contact_request.gjk_solver_type = solver;
      fcl::CollisionResult<double> contacts;
      fcl::collide(&oa, &ob, contact_request, contacts);
      double& worst = solver == fcl::GST_LIBCCD ? t.mpr_depth : t.indep_depth;
      const double theirs = contacts.isCollision() ? contacts.getContact(0).penetration_depth : 0.0;
      worst = std::max(worst, std::abs(exact.depth - theirs));
    }
  }
  BOOST_TEST_MESSAGE(a.name << "-" << b.name << ": " << t.apart << " poses apart (largest distance difference "
                            << t.distance << " m, witness points " << t.along << " m along the normal, both within "
                            << "1e-6 m of FCL's on " << t.coincident << "); " << t.overlapping << " overlapping (depth "
                            << t.exact_depth << " m from the exact one, normal " << t.exact_angle << " rad from it on the "
                            << t.exact << " with one deepest direction; FCL's signed distance " << t.depth << " m, normal "
                            << t.angle << " rad over " << t.normals << "); fcl::collide's depth off the exact one by up to "
                            << t.mpr_depth << " m (libccd, MPR), " << t.indep_depth << " m (GST_INDEP)");
  BOOST_TEST(t.apart > count / 10);
  BOOST_TEST(t.overlapping > count / 10);
  return t;
}

}  // namespace

BOOST_AUTO_TEST_CASE(hull_against_hull) {
  const std::vector<Geometry> meshes = testMeshes();
  std::uint32_t seed = 1;
  const int count = poses();
  for (std::size_t i = 0; i < meshes.size(); ++i) {
    for (std::size_t j = i; j < meshes.size(); ++j) compare(meshes[i], meshes[j], count / 6 + 1, seed++);
  }
}

BOOST_AUTO_TEST_CASE(hull_against_box_and_sphere) {
  const std::vector<Geometry> meshes = testMeshes();
  const int count = poses();
  std::uint32_t seed = 100;
  for (const Geometry& p : {primitive(ShapeType::Box, Vector3(0.12, 0.08, 0.05)), primitive(ShapeType::Sphere, Vector3(0.04, 0, 0))}) {
    for (const Geometry& m : meshes) compare(m, p, count / 3 + 1, seed++);
  }
}
