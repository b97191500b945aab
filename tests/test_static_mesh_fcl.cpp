#define BOOST_TEST_MODULE static_mesh_fcl
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <fcl/geometry/bvh/BVH_model.h>
#include <fcl/geometry/shape/convex.h>
#include <fcl/math/bv/OBBRSS.h>
#include <fcl/narrowphase/collision.h>
#include <fcl/narrowphase/distance.h>

#include "abdyn/abdyn.hpp"
#include "box_surface.hpp"

// abdyn's distance between a convex hull and a static triangle mesh (staticMeshDistance: the hierarchy, then
// GJK/EPA per triangle) against FCL 0.7's queries on its own hierarchy of the same triangles (BVHModel<OBBRSS>
// against fcl::Convex, GJK tolerances 1e-12): for poses apart, fcl::distance's distance and both nearest points to
// 1e-6 m; for every pose, whether fcl::collide finds them overlapping; for overlapping poses, the triangles
// fcl::collide reports (one contact per overlapped triangle) are those abdyn finds overlapping. FCL 0.7's depths of
// a shape in a triangle are not the least translation (its EPA for shapes against triangles disagrees with the
// separating axis test below on most poses, by up to 40 mm, and reports them negated), so each triangle's depth is
// checked against the separating axis test (exact for polytopes) to 1e-6 m instead, and the mesh's depth is the
// deepest of them. Meshes of our own: a bumpy open terrain (a 6 x 6 height field, fixed seed) and a closed slab
// cut into 3 x 3 squares per face; hulls of our own: a rock (48 random points on an ellipsoid) and a crystal (24
// random points in a box). 500 random poses per pair (fixed seeds), the mesh itself turned and moved.

using abdyn::Geometry;
using abdyn::Plx;
using abdyn::ShapeType;
using abdyn::Vector3;

namespace static_mesh_fcl_test {

abdyn::TriangleMesh terrain() {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-0.03, 0.03);
  const int n = 6;
  const double cell = 0.1;
  abdyn::TriangleMesh m;
  for (int i = 0; i <= n; ++i) {
    for (int j = 0; j <= n; ++j) m.vertices.emplace_back(cell * (i - 0.5 * n), cell * (j - 0.5 * n), u(rng));
  }
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const int a = i * (n + 1) + j, b = a + n + 1;
      m.triangles.push_back({a, b, b + 1});
      m.triangles.push_back({a, b + 1, a + 1});
    }
  }
  return m;
}

// The top face at z = 0.
abdyn::TriangleMesh slab() { return abdyn_test::boxSurface(Vector3(0.6, 0.6, 0.05), Vector3(0.0, 0.0, -0.025), 3); }

Geometry hull(const std::string& name, bool rock) {
  std::mt19937 rng(rock ? 32 : 33);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  abdyn::TriangleMesh m;
  for (int k = 0; k < (rock ? 48 : 24); ++k) {
    m.vertices.push_back(rock ? Vector3(Vector3(normal(rng), normal(rng), normal(rng)).normalized().cwiseProduct(Vector3(0.08, 0.05, 0.04)))
                              : Vector3(0.05 * u(rng), 0.03 * u(rng), 0.06 * u(rng)));
  }
  m.triangles.push_back({0, 1, 2});  // the hull uses the vertices only
  Geometry g;
  g.name = name;
  g.shape = ShapeType::Mesh;
  g.mesh = abdyn::makeMeshShape(m, Vector3::Ones(), 0, name);
  return g;
}

std::shared_ptr<fcl::Convexd> fclConvex(const abdyn::ConvexHull& h) {
  auto vertices = std::make_shared<std::vector<Vector3>>(h.vertices);
  auto faces = std::make_shared<std::vector<int>>();
  for (const auto& f : h.faces) {
    faces->push_back(static_cast<int>(f.size()));
    faces->insert(faces->end(), f.begin(), f.end());
  }
  return std::make_shared<fcl::Convexd>(vertices, static_cast<int>(h.faces.size()), faces);
}

std::shared_ptr<fcl::BVHModel<fcl::OBBRSSd>> fclMesh(const abdyn::TriangleMesh& m) {
  auto model = std::make_shared<fcl::BVHModel<fcl::OBBRSSd>>();
  std::vector<fcl::Triangle> triangles;
  for (const auto& t : m.triangles) triangles.emplace_back(t[0], t[1], t[2]);
  model->beginModel();
  model->addSubModel(m.vertices, triangles);
  model->endModel();
  return model;
}

// The depth of a convex polytope (hull turned by R, moved by p) overlapping a triangle, by the separating axis
// theorem: the least overlap of their projections over the hull's face normals, the triangle's normal and the
// cross products of their edges (for two convex polytopes the least translation that parts them is along one of
// these). Independent of both GJK/EPA implementations.
// Whether d's points lie on the shapes: point_a in the hull (turned by R, moved by p; within 1e-9 m of its faces)
// and point_b on a triangle of the mesh (within 1e-9 m).
bool onShapes(const abdyn::ConvexHull& hull, const Eigen::Matrix3d& R, const Vector3& p, const Geometry& mesh,
              const Plx& X_mesh_world, const abdyn::ConvexDistance& d) {
  const Vector3 a = R.transpose() * (d.point_a - p);
  for (std::size_t f = 0; f < hull.normals.size(); ++f) {
    if (hull.normals[f].dot(a) > hull.offsets[f] + 1e-9) return false;
  }
  const Vector3 b = X_mesh_world.applyToPoint(d.point_b);
  const abdyn::TriangleMesh& m = mesh.mesh->triangles;
  for (const auto& t : m.triangles) {
    const Vector3 &x = m.vertices[static_cast<std::size_t>(t[0])], &y = m.vertices[static_cast<std::size_t>(t[1])],
                  &z = m.vertices[static_cast<std::size_t>(t[2])];
    const Vector3 n = (y - x).cross(z - x);
    if (std::abs(n.normalized().dot(b - x)) > 1e-9) continue;
    const double l1 = (b - x).cross(z - x).dot(n) / n.squaredNorm(), l2 = (y - x).cross(b - x).dot(n) / n.squaredNorm();
    if (l1 >= -1e-9 && l2 >= -1e-9 && l1 + l2 <= 1.0 + 1e-9) return true;
  }
  return false;
}

double separatingAxisDepth(const abdyn::ConvexHull& hull, const Eigen::Matrix3d& R, const Vector3& p,
                           const std::array<Vector3, 3>& t) {
  std::vector<Vector3> v;
  for (const Vector3& x : hull.vertices) v.push_back(R * x + p);
  std::vector<Vector3> axes = {(t[1] - t[0]).cross(t[2] - t[0]).normalized()};
  for (const Vector3& n : hull.normals) axes.push_back(R * n);
  for (const auto& f : hull.faces) {
    for (std::size_t i = 0; i < f.size(); ++i) {
      const Vector3 e = v[static_cast<std::size_t>(f[(i + 1) % f.size()])] - v[static_cast<std::size_t>(f[i])];
      for (std::size_t j = 0; j < 3; ++j) {
        const Vector3 a = e.cross(t[(j + 1) % 3] - t[j]);
        if (a.norm() > 1e-9) axes.push_back(a.normalized());
      }
    }
  }
  double depth = HUGE_VAL;
  for (const Vector3& a : axes) {
    double h_lo = HUGE_VAL, h_hi = -HUGE_VAL, t_lo = HUGE_VAL, t_hi = -HUGE_VAL;
    for (const Vector3& x : v) {
      h_lo = std::min(h_lo, a.dot(x));
      h_hi = std::max(h_hi, a.dot(x));
    }
    for (const Vector3& x : t) {
      t_lo = std::min(t_lo, a.dot(x));
      t_hi = std::max(t_hi, a.dot(x));
    }
    depth = std::min({depth, h_hi - t_lo, t_hi - h_lo});
  }
  return depth;
}

}  // namespace static_mesh_fcl_test

using namespace static_mesh_fcl_test;

BOOST_AUTO_TEST_CASE(hull_against_static_mesh_matches_fcl) {
  for (const bool bumpy : {true, false}) {
    const abdyn::TriangleMesh triangles = bumpy ? terrain() : slab();
    abdyn::ModelBuilder b("world");
    Geometry world;
    world.name = bumpy ? "terrain" : "slab";
    world.shape = ShapeType::Mesh;
    world.mesh = abdyn::makeMeshShape(triangles, Vector3::Ones(), 0, world.name);
    b.addGeometry(world);
    const abdyn::Model model = b.build();
    const Geometry& mesh = model.geometries()[0];
    // The mesh placed at a pose of its own, to check frames: turned 0.3 rad about (1, 2, 3), moved by (0.1, -0.2, 0.3).
    const Eigen::Matrix3d R_mesh = Eigen::AngleAxisd(0.3, Vector3(1, 2, 3).normalized()).toRotationMatrix();
    const Vector3 p_mesh(0.1, -0.2, 0.3);
    const Plx X_mesh_world = Plx::fromPose(R_mesh, p_mesh);
    fcl::Transform3d T_mesh = fcl::Transform3d::Identity();
    T_mesh.linear() = R_mesh;
    T_mesh.translation() = p_mesh;
    const fcl::CollisionObjectd mesh_object(fclMesh(triangles), T_mesh);
    for (const bool rock : {true, false}) {
      const Geometry shape = hull(rock ? "rock" : "crystal", rock);
      const auto convex = fclConvex(shape.mesh->hull);
      std::mt19937 rng(bumpy * 2 + rock);
      std::uniform_real_distribution<double> u(-1.0, 1.0);
      int apart = 0, overlapping = 0, disputed = 0;  // poses where FCL is shown wrong
      for (int k = 0; k < 500; ++k) {
        // Over the mesh, from 5 cm above its surface to 4 cm into it (the hulls are 8 to 16 cm across).
        const Vector3 local(0.25 * u(rng), 0.25 * u(rng), 0.045 + 0.05 * u(rng));
        const Eigen::Matrix3d R = Eigen::Quaterniond(Eigen::Vector4d(u(rng), u(rng), u(rng), u(rng)).normalized()).toRotationMatrix();
        const Vector3 p = R_mesh * local + p_mesh;
        const abdyn::ConvexDistance d = abdyn::staticMeshDistance(shape, Plx::fromPose(R, p), mesh, X_mesh_world);
        fcl::Transform3d T = fcl::Transform3d::Identity();
        T.linear() = R;
        T.translation() = p;
        const fcl::CollisionObjectd shape_object(convex, T);
        const std::string where = world.name + " against " + shape.name + ", pose " + std::to_string(k);
        if (d.distance > 1e-6) {
          ++apart;
          fcl::DistanceRequestd request(true, false, 0.0, 0.0, 1e-12, fcl::GST_INDEP);  // no pruning error
          fcl::DistanceResultd result;
          fcl::distance(&mesh_object, &shape_object, request, result);
          if (std::abs(result.min_distance - d.distance) > 1e-6) {
            // FCL's distance is larger: abdyn's is that of two points on the shapes, so it is no less than the
            // true distance, and FCL's cannot be it.
            ++disputed;
            BOOST_TEST(result.min_distance > d.distance, where << ": abdyn " << d.distance << ", FCL " << result.min_distance);
            BOOST_TEST(onShapes(shape.mesh->hull, R, p, mesh, X_mesh_world, d), where);
            continue;
          }
          BOOST_TEST((result.nearest_points[0] - d.point_b).norm() <= 1e-6, where << ": the mesh's nearest point");
          BOOST_TEST((result.nearest_points[1] - d.point_a).norm() <= 1e-6, where << ": the hull's nearest point");
        } else if (d.distance < -1e-6) {
          ++overlapping;
          fcl::CollisionRequestd request(1000, true, 1, false, true, fcl::GST_INDEP, 1e-12);
          fcl::CollisionResultd result;
          fcl::collide(&mesh_object, &shape_object, request, result);
          // The triangles FCL finds overlapping (Contact::b1 numbers the model's triangles) are those abdyn finds
          // overlapping; per triangle, abdyn's depth is the exact one of the separating axis test.
          std::vector<int> fcl_overlapping, abdyn_overlapping;
          for (std::size_t c = 0; c < result.numContacts(); ++c) fcl_overlapping.push_back(result.getContact(c).b1);
          double deepest = 0.0;
          for (int t = 0; t < static_cast<int>(triangles.triangles.size()); ++t) {
            std::array<Vector3, 3> corner;
            for (std::size_t i = 0; i < 3; ++i) {
              corner[i] = X_mesh_world.applyInverseToPoint(triangles.vertices[static_cast<std::size_t>(triangles.triangles[static_cast<std::size_t>(t)][i])]);
            }
            const double distance = abdyn::convexTriangleDistance(shape, Plx::fromPose(R, p), corner).distance;
            if (std::abs(distance) <= 1e-6) {  // touching: either library may call it either way
              fcl_overlapping.erase(std::remove(fcl_overlapping.begin(), fcl_overlapping.end(), t), fcl_overlapping.end());
              continue;
            }
            if (distance > 0.01) continue;  // GJK's distance has a positive lower bound: apart
            const double exact = separatingAxisDepth(shape.mesh->hull, R, p, corner);
            BOOST_TEST((distance < 0.0) == (exact > 0.0), where << ", triangle " << t << ": abdyn " << distance << ", exact depth " << exact);
            if (distance > 0.0) continue;
            abdyn_overlapping.push_back(t);
            BOOST_TEST(std::abs(-distance - exact) <= 1e-6, where << ", triangle " << t << ": abdyn depth " << -distance << ", exact " << exact);
            deepest = std::max(deepest, exact);
          }
          std::sort(fcl_overlapping.begin(), fcl_overlapping.end());
          fcl_overlapping.erase(std::unique(fcl_overlapping.begin(), fcl_overlapping.end()), fcl_overlapping.end());
          if (fcl_overlapping != abdyn_overlapping) ++disputed;  // abdyn's sets are the exact ones (checked above)
          BOOST_TEST(std::abs(deepest + d.distance) <= 1e-6, where << ": abdyn depth " << -d.distance << ", exact " << deepest);
        } else {
          continue;
        }
        // FCL agrees on whether the shapes overlap.
        fcl::CollisionRequestd request(1, false, 1, false, true, fcl::GST_INDEP, 1e-12);
        fcl::CollisionResultd result;
        fcl::collide(&mesh_object, &shape_object, request, result);
        BOOST_TEST(result.isCollision() == (d.distance < 0.0), where);
      }
      BOOST_TEST_MESSAGE(world.name << " against " << shape.name << ": " << apart << " poses apart, " << overlapping
                                    << " overlapping, FCL shown wrong on " << disputed);
      BOOST_TEST(disputed <= 5);  // 1% of the poses
      BOOST_TEST(apart >= 100);
      BOOST_TEST(overlapping >= 100);
    }
  }
}
