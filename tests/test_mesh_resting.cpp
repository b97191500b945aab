#define BOOST_TEST_MODULE mesh_resting
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "abdyn/abdyn.hpp"

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
