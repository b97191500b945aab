#define BOOST_TEST_MODULE static_mesh
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "abdyn/abdyn.hpp"
#include "test_helpers.hpp"
#include "box_surface.hpp"

// Exact static triangle meshes: the hierarchy (its queries against testing every triangle), the distance of a
// convex shape to the mesh (against the least over every triangle), and the Simulator's contacts with world
// meshes: shapes of every collided kind resting on a table whose top is many triangles, a box sliding across
// the top's inner edges without catching on them, and an arm with mesh links falling onto the table. The
// penetration bound is the 1 mm at default settings (2 mm while a fall's impact is absorbed).

using namespace abdyn;

namespace static_mesh_test {

// The table: a top 1 x 1 x 0.05 m whose upper face lies at z = kTop, each face cut 8 x 8 (768 triangles).
constexpr double kTop = 0.5;
TriangleMesh tableMesh() { return abdyn_test::boxSurface(Vector3(1.0, 1.0, 0.05), Vector3(0.0, 0.0, kTop - 0.025), 8); }

Geometry worldMesh(const TriangleMesh& mesh, const std::string& name) {
  Geometry g;
  g.name = name;
  g.link = "world";
  g.body = 0;
  g.shape = ShapeType::Mesh;
  g.mesh = makeMeshShape(mesh, Vector3::Ones(), 0, name);
  return g;
}

// 40 points on a sphere of radius r (fixed seed) and the six poles: a rounded hull.
TriangleMesh pebble(double r) {
  std::mt19937 rng(7);
  std::normal_distribution<double> normal;
  TriangleMesh m;
  for (int i = 0; i < 40; ++i) m.vertices.push_back(r * Vector3(normal(rng), normal(rng), normal(rng)).normalized());
  for (int axis = 0; axis < 3; ++axis) {
    m.vertices.push_back(r * Vector3::Unit(axis));
    m.vertices.push_back(-r * Vector3::Unit(axis));
  }
  m.triangles.push_back({0, 1, 2});
  return m;
}

// One floating body (1 kg) carrying `shape`, over a world holding the table mesh.
Model onTable(const Geometry& shape) {
  ModelBuilder b("on_table");
  JointSpec free;
  free.type = JointType::Floating;
  free.name = "free";
  const int body = b.addBody(0, free, Plx(), RigidBodyInertia(1.0, Vector3::Zero(), Matrix3::Identity() * 1e-3), "object");
  b.addGeometry(worldMesh(tableMesh(), "table"));
  Geometry g = shape;
  g.body = body;
  g.link = "object";
  b.addGeometry(g);
  return b.build();
}

SimulatorSettings worldContacts() {
  SimulatorSettings s;
  s.body_contacts = true;
  s.contact.world_shapes = true;
  return s;
}

Geometry shapeOf(ShapeType kind, const Vector3& size) {
  Geometry g;
  g.name = "shape";
  g.shape = kind;
  g.size = size;
  return g;
}

}  // namespace static_mesh_test

using namespace static_mesh_test;

// The hierarchy returns every triangle whose box overlaps a query box, and few more (the rest of their leaves):
// 300 random boxes (fixed seed) against testing every triangle of a 768-triangle mesh and of 500 random
// triangles; degenerate triangles are left out, and a vertex out of range is refused.
BOOST_AUTO_TEST_CASE(hierarchy_finds_every_overlapping_triangle) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  TriangleMesh soup;
  for (int t = 0; t < 500; ++t) {
    const Vector3 c(u(rng), u(rng), u(rng));
    for (int k = 0; k < 3; ++k) soup.vertices.push_back(c + 0.1 * Vector3(u(rng), u(rng), u(rng)));
    soup.triangles.push_back({3 * t, 3 * t + 1, 3 * t + 2});
  }
  soup.triangles.push_back({0, 0, 1});  // no area
  for (const TriangleMesh& mesh : {tableMesh(), soup}) {
    const TriangleBvh bvh = buildTriangleBvh(mesh);
    BOOST_TEST(bvh.triangles.size() == (mesh.triangles.size() == 501 ? 500u : mesh.triangles.size()));  // the soup's last is flat
    std::vector<int> found;
    std::size_t total_found = 0, total_expected = 0;
    for (int k = 0; k < 300; ++k) {
      const Vector3 a(u(rng), u(rng), u(rng)), b = a + 0.3 * Vector3(u(rng), u(rng), u(rng)).cwiseAbs();
      bvh.overlapping(a, b, found);
      std::sort(found.begin(), found.end());
      std::vector<int> expected;
      for (int t : bvh.triangles) {
        Vector3 lo = Vector3::Constant(HUGE_VAL), hi = -lo;
        for (int i : mesh.triangles[static_cast<std::size_t>(t)]) {
          lo = lo.cwiseMin(mesh.vertices[static_cast<std::size_t>(i)]);
          hi = hi.cwiseMax(mesh.vertices[static_cast<std::size_t>(i)]);
        }
        if ((lo.array() <= b.array()).all() && (a.array() <= hi.array()).all()) expected.push_back(t);
      }
      std::sort(expected.begin(), expected.end());
      BOOST_TEST(std::includes(found.begin(), found.end(), expected.begin(), expected.end()), "query " << k);
      total_found += found.size();
      total_expected += expected.size();
    }
    BOOST_TEST(total_found < 300 * bvh.triangles.size() / 4);  // the boxes prune
  }
  TriangleMesh bad = soup;
  bad.triangles.push_back({0, 1, 5000});
  BOOST_CHECK_THROW(buildTriangleBvh(bad), InvalidArgument);
}

// The table's top is flat: every inner edge of it has a neighbour in the same plane, and the edges around the
// top's rim have the side's triangles (folded down) beyond them; a box mesh has no boundary.
BOOST_AUTO_TEST_CASE(hierarchy_keeps_neighbours) {
  const TriangleMesh mesh = tableMesh();
  const TriangleBvh bvh = buildTriangleBvh(mesh);
  int coplanar = 0, folded = 0;
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    for (int e = 0; e < 3; ++e) {
      const int o = bvh.opposite[t][static_cast<std::size_t>(e)];
      BOOST_TEST_REQUIRE(o >= 0, "triangle " << t << " edge " << e << " has no neighbour");
      const Vector3& a = mesh.vertices[static_cast<std::size_t>(mesh.triangles[t][static_cast<std::size_t>(e)])];
      const double h = bvh.normals[t].dot(mesh.vertices[static_cast<std::size_t>(o)] - a);
      if (std::abs(h) < 1e-12) {
        ++coplanar;
      } else {
        BOOST_TEST(h < 0.0);  // a convex solid folds away from every face
        ++folded;
      }
    }
  }
  BOOST_TEST(folded == 6 * 4 * 8);  // the rim edges of every face: 6 faces x 4 sides x 8 edges
  BOOST_TEST(coplanar + folded == static_cast<int>(3 * mesh.triangles.size()));
}

// staticMeshDistance is the least distance over every triangle (the hierarchy misses none): shapes of every kind
// at 60 random poses each (fixed seed) around the rim of a table cut 3 x 3 per face, against convexTriangleDistance on
// each triangle; the
// witness points are on the shape and the mesh, distance * normal apart.
BOOST_AUTO_TEST_CASE(mesh_distance_is_the_least_over_the_triangles) {
  ModelBuilder b("world");
  b.addGeometry(worldMesh(abdyn_test::boxSurface(Vector3(1.0, 1.0, 0.05), Vector3(0.0, 0.0, kTop - 0.025), 3), "table"));
  const Model model = b.build();
  const Geometry& table = model.geometries()[0];
  BOOST_TEST_REQUIRE(!table.mesh->bvh.empty());
  Geometry hull = shapeOf(ShapeType::Mesh, Vector3::Zero());
  hull.mesh = makeMeshShape(pebble(0.05), Vector3(1.0, 0.6, 1.4), 0, "pebble");
  const std::vector<Geometry> shapes = {shapeOf(ShapeType::Sphere, Vector3(0.04, 0, 0)), shapeOf(ShapeType::Box, Vector3(0.1, 0.06, 0.04)),
                                        shapeOf(ShapeType::Cylinder, Vector3(0.03, 0.1, 0)),
                                        shapeOf(ShapeType::Capsule, Vector3(0.02, 0.08, 0)), hull};
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (const Geometry& shape : shapes) {
    for (int k = 0; k < 60; ++k) {
      const Vector3 p(0.5 + 0.1 * u(rng), 0.4 * u(rng), kTop + 0.06 * u(rng));
      const Plx X = Plx::fromPose(Eigen::Quaterniond(Eigen::Vector4d(u(rng), u(rng), u(rng), u(rng)).normalized()).toRotationMatrix(), p);
      const ConvexDistance d = staticMeshDistance(shape, X, table, Plx());
      double least = HUGE_VAL;
      for (int t = 0; t < static_cast<int>(table.mesh->triangles.triangles.size()); ++t) {
        std::array<Vector3, 3> c;
        for (std::size_t i = 0; i < 3; ++i) {
          c[i] = table.mesh->triangles.vertices[static_cast<std::size_t>(table.mesh->triangles.triangles[static_cast<std::size_t>(t)][i])];
        }
        least = std::min(least, convexTriangleDistance(shape, X, c).distance);
      }
      BOOST_TEST(d.distance == least, "shape " << static_cast<int>(shape.shape) << " pose " << k);
      BOOST_TEST((d.point_b - d.point_a - d.distance * d.normal).norm() <= 1e-9);
      const ConvexDistance near = staticMeshDistance(shape, X, table, Plx(), 0.01);
      if (least < 0.01) BOOST_TEST(near.distance == least);
      if (near.distance < HUGE_VAL) BOOST_TEST(near.distance == least);
    }
  }
  BOOST_CHECK_THROW(staticMeshDistance(shapes[0], Plx(), shapes[1], Plx()), InvalidArgument);
  Geometry plane = shapeOf(ShapeType::Plane, Vector3::Zero());
  BOOST_CHECK_THROW(staticMeshDistance(plane, Plx(), table, Plx()), InvalidArgument);
  BOOST_CHECK_THROW(staticMeshDistance(shapes[0], Plx(), table, Plx(), std::nan("")), InvalidArgument);
  Geometry moving = hull;  // a mesh not on the world has no hierarchy
  BOOST_CHECK_THROW(staticMeshDistance(shapes[0], Plx(), moving, Plx()), InvalidArgument);
  // One triangle against a plane or a mesh without its hull: the error names convexTriangleDistance.
  const std::array<Vector3, 3> corners{Vector3::Zero(), Vector3::UnitX(), Vector3::UnitY()};
  test::checkError([&] { convexTriangleDistance(plane, Plx(), corners); }, "abdyn::convexTriangleDistance", {"is a plane"});
  Geometry hull_less = shapeOf(ShapeType::Mesh, Vector3::Ones());
  hull_less.mesh = nullptr;
  test::checkError([&] { convexTriangleDistance(hull_less, Plx(), corners); }, "abdyn::convexTriangleDistance",
                   {"without a loaded convex hull"});
}

// Shapes of every collided kind dropped 2 cm onto the table rest on its top after 1 s: at their resting height within
// 1 mm (each shape's half height along z, closed form), at rest, with at most 2 mm of penetration during the
// landing and 1 mm at rest; without world_shapes, or with world shapes but ContactGeometry::Primitives (which
// skips meshes), they fall through. A box lands across the top's inner edges (its corners in four triangles).
BOOST_AUTO_TEST_CASE(shapes_rest_on_a_static_mesh) {
  Geometry hull = shapeOf(ShapeType::Mesh, Vector3::Zero());
  hull.mesh = makeMeshShape(abdyn_test::boxSurface(Vector3(0.1, 0.08, 0.06), Vector3::Zero(), 1), Vector3::Ones(), 0, "brick");
  struct Case {
    Geometry shape;
    double half_height;
  };
  const std::vector<Case> cases = {{shapeOf(ShapeType::Sphere, Vector3(0.04, 0, 0)), 0.04},
                                   {shapeOf(ShapeType::Box, Vector3(0.1, 0.08, 0.06)), 0.03},
                                   {shapeOf(ShapeType::Cylinder, Vector3(0.03, 0.1, 0)), 0.05},
                                   {shapeOf(ShapeType::Capsule, Vector3(0.02, 0.08, 0)), 0.06},
                                   {hull, 0.03}};
  for (const Case& c : cases) {
    const std::string kind = std::to_string(static_cast<int>(c.shape.shape));
    Simulator sim(onTable(c.shape), worldContacts());
    sim.q.head<3>() = Vector3(0.125, 0.125, kTop + c.half_height + 0.02);  // over a vertex of the top's grid
    double deepest = 0.0, resting = 0.0;
    for (int k = 0; k < 1000; ++k) {
      sim.step(1e-3);
      deepest = std::max(deepest, sim.statistics().constraint_error);
      if (k >= 700) resting = std::max(resting, sim.statistics().constraint_error);
    }
    BOOST_TEST(std::abs(sim.q[2] - (kTop + c.half_height)) <= 1e-3, "kind " << kind << " rests at z = " << sim.q[2]);
    BOOST_TEST(sim.v.norm() <= 1e-2, "kind " << kind << " |v| = " << sim.v.norm());
    BOOST_TEST(deepest <= 2e-3, "kind " << kind << " deepest " << deepest);
    BOOST_TEST(resting <= 1e-3, "kind " << kind << " resting " << resting);
    BOOST_TEST(sim.statistics().contacts <= 4);
    if (c.shape.shape == ShapeType::Box || c.shape.shape == ShapeType::Mesh) BOOST_TEST(sim.statistics().contacts == 4);
  }
  for (const bool primitives : {false, true}) {
    SimulatorSettings settings = worldContacts();
    settings.contact.world_shapes = primitives;
    if (primitives) settings.contact.geometry = ContactGeometry::Primitives;
    Simulator sim(onTable(cases[1].shape), settings);
    sim.q[2] = kTop + 0.05;
    for (int k = 0; k < 500; ++k) sim.step(1e-3);
    BOOST_TEST(sim.q[2] < kTop - 0.2);
  }
}

// A box sliding across the flat top (1.5 m/s along a diagonal of the grid, mu = 0.1) crosses many inner edges
// without catching on them: its height stays within 1 mm of resting and it never jumps (vertical speed below
// 2 cm/s), and friction alone slows it (closed form below, within 1%).
BOOST_AUTO_TEST_CASE(sliding_box_crosses_inner_edges) {
  SimulatorSettings settings = worldContacts();
  settings.contact.mu = 0.1;
  Simulator sim(onTable(shapeOf(ShapeType::Box, Vector3(0.06, 0.06, 0.04))), settings);
  sim.q.head<3>() = Vector3(-0.3, -0.2, kTop + 0.02);
  for (int k = 0; k < 100; ++k) sim.step(1e-3);  // settle
  const Vector3 direction = Vector3(1.0, 0.6, 0.0).normalized();
  sim.v.tail<3>() = 1.5 * direction;  // the free joint's linear velocity, world axes
  sim.v.head<3>().setZero();
  const double start = sim.q.head<2>().dot(direction.head<2>());
  double highest = 0.0, fastest_up = 0.0;
  const int steps = 400;
  for (int k = 0; k < steps; ++k) {
    sim.step(1e-3);
    highest = std::max(highest, std::abs(sim.q[2] - (kTop + 0.02)));
    fastest_up = std::max(fastest_up, std::abs(sim.v[5]));
  }
  BOOST_TEST(highest <= 1e-3);
  BOOST_TEST(fastest_up <= 2e-2);
  // The friction rows act along the world's x and y (the contact's tangents for a normal along z), each bounded
  // by mu times the normal impulse (the box approximation of the cone): both components slow at mu g, so along
  // the direction d the box slows at mu g (|d_x| + |d_y|) while neither has stopped (y would stop after 0.79 s).
  const double t = steps * 1e-3, slowing = 0.1 * 9.81 * (std::abs(direction.x()) + std::abs(direction.y()));
  const double travelled = sim.q.head<2>().dot(direction.head<2>()) - start;
  const double expected = 1.5 * t - 0.5 * slowing * t * t;
  BOOST_TEST(std::abs(travelled - expected) <= 0.01 * expected, "travelled " << travelled << ", expected " << expected);
}

namespace static_mesh_test {

// An arm fixed beside the table: a shoulder turning about z (no collision shape), then an upper arm (0.35 m) and a
// forearm (0.3 m) turning about y, each a 1 kg mesh link (the hull of a 5 x 5 cm bar), joint damping 0.5 N m s.
// At q = 0 both bars point along +x, 0.2 m above the top; gravity swings them down onto the table.
Model armBesideTable() {
  ModelBuilder b("arm");
  b.addGeometry(worldMesh(tableMesh(), "table"));
  const auto bar = [](double length) {
    return makeMeshShape(abdyn_test::boxSurface(Vector3(length, 0.05, 0.05), Vector3(0.5 * length, 0.0, 0.0), 1), Vector3::Ones(), 0, "bar");
  };
  const auto rod = [](double length) {
    const double I = length * length / 12.0;
    return RigidBodyInertia(1.0, Vector3(0.5 * length, 0.0, 0.0), Vector3(1e-3, I, I).asDiagonal());
  };
  JointSpec shoulder;
  shoulder.name = "shoulder";
  shoulder.axis = Vector3::UnitZ();
  shoulder.damping = 0.5;
  const int s = b.addBody(0, shoulder, Plx::translation(Vector3(-0.55, 0.0, kTop + 0.15)),
                          RigidBodyInertia(1.0, Vector3(0.0, 0.0, 0.025), Matrix3::Identity() * 1e-3), "shoulder");
  int parent = s;
  Vector3 at(0.0, 0.0, 0.05);
  for (const auto& [name, length] : {std::pair<std::string, double>{"upper", 0.35}, {"fore", 0.3}}) {
    JointSpec j;
    j.name = name;
    j.axis = Vector3::UnitY();
    j.damping = 0.5;
    parent = b.addBody(parent, j, Plx::translation(at), rod(length), name);
    Geometry g;
    g.name = name;
    g.link = name;
    g.body = parent;
    g.shape = ShapeType::Mesh;
    g.mesh = bar(length);
    b.addGeometry(g);
    at = Vector3(length, 0.0, 0.0);
  }
  return b.build();
}

}  // namespace static_mesh_test

// The arm falls onto the table (its upper arm across the table's rim, a crease of the mesh, its forearm onto the
// flat top) and comes to rest there: no link passes through the table (every hull vertex over the top stays above
// it, less 1 mm), the penetration is at most 2 mm while it lands and 1 mm at rest, and it is still at the end.
BOOST_AUTO_TEST_CASE(arm_falls_onto_a_table_mesh) {
  Simulator sim(armBesideTable(), worldContacts());
  const Model& model = sim.model();
  Data data(model);
  double deepest = 0.0, resting = 0.0, lowest = HUGE_VAL;
  bool touched = false;
  for (int k = 0; k < 2000; ++k) {
    sim.step(1e-3);
    touched |= sim.statistics().contacts > 0;
    if (touched) deepest = std::max(deepest, sim.statistics().constraint_error);
    if (k >= 1500) resting = std::max(resting, sim.statistics().constraint_error);
    forwardKinematics(model, data, sim.q);
    for (const Geometry& g : model.geometries()) {
      if (g.body == 0) continue;
      const Plx X = g.X_geometry_body * data.X_body_world[static_cast<std::size_t>(g.body)];
      for (const Vector3& p : g.mesh->hull.vertices) {
        const Vector3 w = X.applyInverseToPoint(p);
        if (std::abs(w.x()) < 0.5 && std::abs(w.y()) < 0.5 && w.z() > kTop - 0.05) lowest = std::min(lowest, w.z());
      }
    }
  }
  BOOST_TEST(touched);
  BOOST_TEST(lowest >= kTop - 1e-3, "lowest point over the top at z = " << lowest);
  BOOST_TEST(lowest <= kTop + 1e-3);  // the forearm lies on the top
  BOOST_TEST(deepest <= 2e-3);
  BOOST_TEST(resting <= 1e-3);
  BOOST_TEST(sim.v.norm() <= 1e-2, "|v| = " << sim.v.norm());
  BOOST_TEST(sim.statistics().contacts >= 2);
}

// The world's primitives collide too with world_shapes: a sphere dropped on a box table (a Box shape on the
// world) rests on it at its radius (closed form, within 1 mm); ContactGeometry::ConvexHulls collides a world
// mesh by its hull, which for the table (a box) rests the sphere at the same height.
BOOST_AUTO_TEST_CASE(world_primitives_and_hulls_collide) {
  for (const bool as_box : {true, false}) {
    ModelBuilder b("on_box");
    JointSpec free;
    free.type = JointType::Floating;
    free.name = "free";
    const int body = b.addBody(0, free, Plx(), RigidBodyInertia(1.0, Vector3::Zero(), Matrix3::Identity() * 1e-3), "ball");
    Geometry table = as_box ? shapeOf(ShapeType::Box, Vector3(1.0, 1.0, 0.05)) : worldMesh(tableMesh(), "table");
    table.body = 0;
    if (as_box) table.X_geometry_body = Plx::translation(Vector3(0.0, 0.0, kTop - 0.025));
    b.addGeometry(table);
    Geometry ball = shapeOf(ShapeType::Sphere, Vector3(0.04, 0.0, 0.0));
    ball.body = body;
    b.addGeometry(ball);
    SimulatorSettings settings = worldContacts();
    if (!as_box) settings.contact.geometry = ContactGeometry::ConvexHulls;
    Simulator sim(b.build(), settings);
    sim.q[2] = kTop + 0.06;
    for (int k = 0; k < 1000; ++k) sim.step(1e-3);
    BOOST_TEST(std::abs(sim.q[2] - (kTop + 0.04)) <= 1e-3, (as_box ? "box" : "hull") << " table: the ball at z = " << sim.q[2]);
    BOOST_TEST(sim.statistics().contacts == 1);
  }
}
