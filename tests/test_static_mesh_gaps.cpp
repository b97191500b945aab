#define BOOST_TEST_MODULE static_mesh_gaps
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "abdyn/abdyn.hpp"

// The gaps of a hull's contact rows against an exact static mesh never fall below the hull's true distance to the
// mesh while the two are apart. The mesh is a flat sheet whose right edge has a middle vertex A touched by three
// triangles; the middle one meets the boundary only at A, through two edges between coplanar triangles, so its
// corner A is no crease of its own while the sheet ends there. A hull beside the sheet past A reaches below the
// sheet's plane: the depth of its lowest point below that plane is no gap of the sheet's (a point far from the mesh
// would push the body out with energy it never had). The distance compared against is staticMeshDistance and the
// least of convexTriangleDistance over every triangle (the same distance routine, so they agree to rounding); a
// row's gap is a separation along a unit normal, never less than the distance, so the tolerance is rounding's.

using namespace abdyn;

namespace static_mesh_gaps_test {

constexpr double kRounding = 1e-9;  // m: rounding of GJK on shapes of size 1 (its stop rule is relative, 1e-12)

// The square sheet [-1, 1]^2 in z = 0, seven vertices, seven triangles; A = (1, 0, 0) is vertex 1. An eighth
// vertex below, in no triangle, gives the points the volume the convex hull every mesh gets needs.
TriangleMesh sheet() {
  TriangleMesh m;
  m.vertices = {Vector3(1, 1, 0),  Vector3(1, 0, 0),   Vector3(1, -1, 0),   Vector3(-1, -1, 0),
                Vector3(-1, 1, 0), Vector3(0, 0.5, 0), Vector3(0, -0.5, 0), Vector3(0, 0, -1)};
  // Around A: (A, R1, C1) and (A, C2, R2) have boundary edges, (A, C1, C2) only its corner A on the boundary.
  m.triangles = {{1, 0, 5}, {1, 5, 6}, {1, 6, 2}, {0, 4, 5}, {5, 4, 3}, {5, 3, 6}, {6, 3, 2}};
  return m;
}

// A box's eight corners (half extents h) as a mesh whose convex hull is the box.
TriangleMesh boxCorners(const Vector3& h) {
  TriangleMesh m;
  for (int k = 0; k < 8; ++k) {
    m.vertices.emplace_back((k & 1 ? 1 : -1) * h.x(), (k & 2 ? 1 : -1) * h.y(), (k & 4 ? 1 : -1) * h.z());
  }
  m.triangles.push_back({0, 1, 2});
  return m;
}

// One floating body carrying the hull of `hull`, placed at pose (R, p) in the world, and the sheet on the world.
Model hullBesideSheet(const TriangleMesh& hull, const Matrix3& R, const Vector3& p) {
  ModelBuilder b("hull_beside_sheet");
  JointSpec free;
  free.type = JointType::Floating;
  free.name = "free";
  const int body = b.addBody(0, free, Plx::fromPose(R, p), RigidBodyInertia(1.0, Vector3::Zero(), Matrix3::Identity() * 1e-3),
                             "object");
  Geometry world;
  world.name = "sheet";
  world.link = "world";
  world.body = 0;
  world.shape = ShapeType::Mesh;
  world.mesh = makeMeshShape(sheet(), Vector3::Ones(), 0, "sheet");
  b.addGeometry(world);
  Geometry g;
  g.name = "hull";
  g.link = "object";
  g.body = body;
  g.shape = ShapeType::Mesh;
  g.mesh = makeMeshShape(hull, Vector3::Ones(), 0, "hull");
  b.addGeometry(g);
  return b.build();
}

struct Gaps {
  double exact = 0.0;        // staticMeshDistance
  double brute = 0.0;        // least convexTriangleDistance over the triangles
  double least_row = HUGE_VAL;  // least gap of the normal rows
  int contacts = 0;
};

Gaps gapsAt(const TriangleMesh& hull, const Matrix3& R, const Vector3& p) {
  const Model model = hullBesideSheet(hull, R, p);
  Data data(model);
  const Eigen::VectorXd q = neutral(model);
  forwardKinematics(model, data, q);
  jointJacobians(model, data);
  const Geometry& world = model.geometries()[0];
  const Geometry& shape = model.geometries()[1];
  BOOST_REQUIRE(world.mesh != nullptr && !world.mesh->bvh.empty());
  const Plx X_shape_world = shape.X_geometry_body * data.X_body_world[static_cast<std::size_t>(shape.body)];
  const Plx X_mesh_world = world.X_geometry_body * data.X_body_world[0];
  Gaps out;
  out.exact = staticMeshDistance(shape, X_shape_world, world, X_mesh_world, HUGE_VAL).distance;
  out.brute = HUGE_VAL;
  const TriangleMesh s = sheet();
  for (const auto& t : s.triangles) {
    const std::array<Vector3, 3> c{X_mesh_world.applyInverseToPoint(s.vertices[static_cast<std::size_t>(t[0])]),
                                   X_mesh_world.applyInverseToPoint(s.vertices[static_cast<std::size_t>(t[1])]),
                                   X_mesh_world.applyInverseToPoint(s.vertices[static_cast<std::size_t>(t[2])])};
    out.brute = std::min(out.brute, convexTriangleDistance(shape, X_shape_world, c).distance);
  }
  GroundContactSettings settings;
  settings.world_shapes = true;
  settings.geometry = ContactGeometry::StaticMeshes;
  settings.speculative_steps = HUGE_VAL;  // rows for every point within the margin, at rest too
  RowSet rows(model);
  out.contacts = addBodyContactRows(rows, model, data, Eigen::VectorXd::Zero(model.nv()), settings, 1e-3, 0);
  for (int i = 0; i < rows.size(); ++i) {
    if (rows[i].unilateral) out.least_row = std::min(out.least_row, rows[i].error);
  }
  return out;
}

}  // namespace static_mesh_gaps_test

using namespace static_mesh_gaps_test;

BOOST_AUTO_TEST_CASE(hull_past_a_corner_has_no_false_overlap) {
  // A cube of side 0.2 whose face x = 1.005 faces A from 5 mm, its centre 2 cm above the sheet's plane and its
  // bottom 8 cm below it: 5 mm from the sheet (within the default 1 cm margin), nowhere over it.
  const Gaps g = gapsAt(boxCorners(Vector3::Constant(0.1)), Matrix3::Identity(), Vector3(1.105, 0.0, 0.02));
  BOOST_CHECK_CLOSE(g.exact, 0.005, 1e-6);  // the face's offset from x = 1 (relative 1e-8: rounding)
  BOOST_CHECK_SMALL(g.exact - g.brute, kRounding);
  BOOST_REQUIRE_GT(g.contacts, 0);  // within the margin: speculative rows
  BOOST_CHECK_GE(g.least_row, g.exact - kRounding);
}

BOOST_AUTO_TEST_CASE(random_poses_beside_the_boundary) {
  // A cube and a long bar at random orientations with centres around the sheet's right edge (mostly beyond it, above and
  // below): whenever the hull is apart from the sheet, no row's gap is below its distance.
  std::mt19937 rng(32);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  const TriangleMesh hulls[2] = {boxCorners(Vector3::Constant(0.1)), boxCorners(Vector3(0.3, 0.03, 0.03))};
  int apart_with_rows = 0;
  for (int trial = 0; trial < 5000; ++trial) {
    const Eigen::Quaterniond turn(Eigen::Vector4d(unit(rng), unit(rng), unit(rng), unit(rng)).normalized());
    const Vector3 p(1.2 + 0.2 * unit(rng), 0.3 * unit(rng), 0.15 * unit(rng));
    const Gaps g = gapsAt(hulls[trial % 2], turn.toRotationMatrix(), p);
    BOOST_CHECK_SMALL(g.exact - g.brute, kRounding);
    if (!(g.exact > 0.0) || g.contacts == 0) continue;
    ++apart_with_rows;
    BOOST_CHECK_MESSAGE(g.least_row >= g.exact - kRounding, "trial " << trial << ": row gap " << g.least_row
                                                                       << " below the distance " << g.exact);
  }
  BOOST_TEST_MESSAGE(apart_with_rows << " apart poses with rows");
  BOOST_CHECK_GT(apart_with_rows, 50);  // the margin band is hit often enough for the check to mean something
}
