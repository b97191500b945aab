#define BOOST_TEST_MODULE mesh_resting
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "abdyn/abdyn.hpp"
#include "box_surface.hpp"

// Resting contact of convex meshes, where the narrow phase and the row solver meet degenerate cases.
// A pile of convex mesh objects at rest on the ground and on each other (the scene of bench/bench_mesh_pile.cpp,
// smaller): its contact points stay where they are from step to step, so the rows keep their keys and their
// warm-start impulses, and the row solver meets its tolerance in a few sweeps instead of running to its cap.

using namespace abdyn;

namespace {

constexpr int kObjects = 9;
constexpr double kStep = 1e-3;
const Vector3 kSemiAxes(0.05, 0.04, 0.03);
constexpr double kMass = 0.2;

// kObjects hulls of 32 random points on the ellipsoid kSemiAxes (fixed seed), stacked loosely above the ground.
Simulator pile() {
  std::mt19937 rng(2022);
  std::normal_distribution<double> normal;
  const Vector3 s2 = kSemiAxes.cwiseProduct(kSemiAxes);
  const Vector3 I = kMass / 5.0 * Vector3(s2[1] + s2[2], s2[0] + s2[2], s2[0] + s2[1]);  // the solid ellipsoid's
  ModelBuilder b("pile");
  std::vector<Vector3> start;
  for (int k = 0; k < kObjects; ++k) {
    TriangleMesh mesh;
    for (int i = 0; i < 32; ++i) {
      mesh.vertices.push_back(Vector3(normal(rng), normal(rng), normal(rng)).normalized().cwiseProduct(kSemiAxes));
    }
    mesh.triangles.push_back({0, 1, 2});
    JointSpec free;
    free.type = JointType::Floating;
    free.name = "free" + std::to_string(k);
    const int body = b.addBody(0, free, Plx(), RigidBodyInertia(kMass, Vector3::Zero(), I.asDiagonal()),
                               "rock" + std::to_string(k));
    Geometry g;
    g.name = g.link = "rock" + std::to_string(k);
    g.body = body;
    g.shape = ShapeType::Mesh;
    g.mesh = makeMeshShape(mesh, Vector3::Ones(), 0, g.name);
    b.addGeometry(g);
    start.emplace_back(0.06 * (k % 3) - 0.06, 0.06 * (k / 3) - 0.06, 0.08 + 0.01 * k);
  }
  SimulatorSettings settings;
  settings.ground = true;
  settings.body_contacts = true;
  Simulator sim(b.build(), settings);
  for (int k = 0; k < kObjects; ++k) sim.q.segment<3>(7 * k) = start[static_cast<std::size_t>(k)];
  return sim;
}

// The contact normal rows of the last step by key (their J: where and along what each pushes).
std::map<std::int64_t, Eigen::VectorXd> normalRows(const Simulator& sim) {
  std::map<std::int64_t, Eigen::VectorXd> rows;
  for (int r = 0; r < sim.rows().size(); ++r) {
    const ConstraintRow& row = sim.rows()[r];
    if (row.unilateral) rows[row.key] = row.J;
  }
  return rows;
}

}  // namespace

BOOST_AUTO_TEST_CASE(resting_pile_keeps_its_contact_points_and_converges) {
  Simulator sim = pile();
  for (int s = 0; s < 1500; ++s) sim.step(kStep);
  std::map<std::int64_t, Eigen::VectorXd> before = normalRows(sim);
  BOOST_TEST_REQUIRE(before.size() >= static_cast<std::size_t>(3 * kObjects));  // every object on three points or more
  const int cap = sim.settings().solver.max_iterations;
  double deepest = 0.0;
  for (int s = 0; s < 200; ++s) {
    const StepStatistics& st = sim.step(kStep);
    deepest = std::max(deepest, st.constraint_error);
    // Converged: the tolerance met before the cap.
    BOOST_TEST(st.iterations < cap, "step " << s << ": " << st.iterations << " sweeps, residual " << st.residual);
    BOOST_TEST(st.residual <= sim.settings().solver.tolerance);
    const std::map<std::int64_t, Eigen::VectorXd> after = normalRows(sim);
    BOOST_TEST_REQUIRE(after.size() == before.size(), "step " << s);
    for (const auto& [key, J] : after) {
      const auto kept = before.find(key);
      BOOST_TEST_REQUIRE((kept != before.end()), "step " << s << ": a new contact key " << key);
      // A point of a resting body stays put: its row's lever arms (J, m) move by far less than a micrometre.
      BOOST_TEST((J - kept->second).lpNorm<Eigen::Infinity>() < 1e-6, "step " << s << ", key " << key);
    }
    before = after;
  }
  BOOST_TEST(deepest <= 1e-3);  // the penetration bound at default settings
  // At rest: what is left moving is far below the energy one step of gravity gives the pile (m g^2 h^2 / 2 each).
  Data data(sim.model());
  const double one_step = kObjects * 0.5 * kMass * std::pow(9.81 * kStep, 2);
  BOOST_TEST(kineticEnergy(sim.model(), data, sim.q, sim.v) < 1e-3 * one_step);
}

// A box's face parallel to a triangle: every corner of the face is a support point along the normal, which
// GJK must not take and drop forever. The distance is the gap (closed form: the face lies that far above the
// triangle's plane and over its interior), to rounding (1e-12 m), the normal the triangle's to the 1e-6 rad of
// the FCL comparison (rounding of the coordinates, 1e-16 of 0.5 m, over the gap leaves 5e-9 rad at 1e-8 m).
BOOST_AUTO_TEST_CASE(box_face_over_a_triangle_gives_the_gap) {
  Geometry bar;
  bar.name = "bar";
  bar.shape = ShapeType::Mesh;
  bar.mesh = makeMeshShape(abdyn_test::boxSurface(Vector3(0.35, 0.05, 0.05), Vector3::Zero(), 1), Vector3::Ones(), 0, "bar");
  const std::array<Vector3, 3> triangle{Vector3(-0.25, -0.25, 0.5), Vector3(0.25, -0.25, 0.5), Vector3(0.25, 0.25, 0.5)};
  for (const double gap : {1e-2, 1e-3, 1e-5, 1e-8}) {
    const ConvexDistance d = convexTriangleDistance(bar, Plx::translation(Vector3(0.05, -0.1, 0.525 + gap)), triangle);
    BOOST_TEST(std::abs(d.distance - gap) < 1e-12, "gap " << gap << ": distance " << d.distance);
    BOOST_TEST((d.normal + Vector3::UnitZ()).norm() < 1e-6, "gap " << gap);
  }
}

// The static mesh distance skips triangles that a separating axis shows no nearer than the best found so far:
// on random poses of a box hull around a table's corner (fixed seed), it equals the least distance to every
// triangle of the mesh taken one by one (convexTriangleDistance), to rounding (1e-12 m).
BOOST_AUTO_TEST_CASE(static_mesh_distance_skips_only_farther_triangles) {
  const TriangleMesh table = abdyn_test::boxSurface(Vector3(1.0, 1.0, 0.05), Vector3(0.0, 0.0, 0.475), 4);
  Geometry mesh;
  mesh.name = "table";
  mesh.shape = ShapeType::Mesh;
  mesh.mesh = withTriangleBvh(makeMeshShape(table, Vector3::Ones(), 0, "table"));
  Geometry brick;
  brick.name = "brick";
  brick.shape = ShapeType::Mesh;
  brick.mesh = makeMeshShape(abdyn_test::boxSurface(Vector3(0.1, 0.08, 0.06), Vector3::Zero(), 1), Vector3::Ones(), 0, "brick");
  std::mt19937 rng(32);
  std::uniform_real_distribution<double> around(-0.1, 0.1);
  std::normal_distribution<double> normal;
  const Plx X_mesh_world;
  for (int trial = 0; trial < 200; ++trial) {
    const Eigen::Quaterniond turn(normal(rng), normal(rng), normal(rng), normal(rng));
    const Plx X = Plx::fromPose(turn.normalized().toRotationMatrix(), Vector3(0.5 + around(rng), 0.5 + around(rng), 0.5 + around(rng)));
    const ConvexDistance fast = staticMeshDistance(brick, X, mesh, X_mesh_world, std::numeric_limits<double>::infinity());
    double least = std::numeric_limits<double>::infinity();
    for (const auto& t : table.triangles) {
      const std::array<Vector3, 3> corners{table.vertices[static_cast<std::size_t>(t[0])], table.vertices[static_cast<std::size_t>(t[1])],
                                           table.vertices[static_cast<std::size_t>(t[2])]};
      least = std::min(least, convexTriangleDistance(brick, X, corners).distance);
    }
    BOOST_TEST(std::abs(fast.distance - least) < 1e-12, "trial " << trial << ": " << fast.distance << " against " << least);
  }
}
