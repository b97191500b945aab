// The narrow phase alone (include/abdyn/constraints/convex_distance.hpp), per call, on the pairs the mesh scenes
// collide (bench_mesh_scenes.cpp, bench_mesh_pile.cpp), each over 256 poses drawn before timing (fixed seeds):
//   HullHull      two hulls of 32 random points on a 5 x 4 x 3 cm ellipsoid (the pile's objects), centres 2 to
//                 9 cm apart, random orientations: about half apart, half overlapping (GJK, then EPA)
//   BarOnTriangle a 30 x 5 x 5 cm box hull (the arm's links) lying on a table triangle, tilted by up to 10 urad and
//                 from 10 um above to 10 um into it (resting contact: GJK touching, shallow EPA)
//   BarNearTriangle the same bar 1 to 5 mm above the triangle (GJK apart)
//   HullPlane     a hull of 40 random points on a 2.5 cm sphere (the quadruped's feet) against a plane
// Counter: overlapping, the share of the poses whose shapes overlap.
// Run: build/bench/bench_narrow_phase

#include <benchmark/benchmark.h>

#include <array>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "abdyn/abdyn.hpp"

namespace {

using abdyn::Geometry;
using abdyn::Plx;
using abdyn::Vector3;

constexpr int kPoses = 256;

Geometry hullOf(const std::vector<Vector3>& points, const std::string& name) {
  abdyn::TriangleMesh mesh;
  mesh.vertices = points;
  mesh.triangles.push_back({0, 1, 2});  // the hull is made of the vertices alone
  Geometry g;
  g.name = name;
  g.shape = abdyn::ShapeType::Mesh;
  g.mesh = abdyn::makeMeshShape(mesh, Vector3::Ones(), 0, name);
  return g;
}

Geometry ellipsoidHull(std::mt19937& rng, int points, const Vector3& semi_axes, const std::string& name) {
  std::normal_distribution<double> normal;
  std::vector<Vector3> p;
  for (int k = 0; k < points; ++k) p.push_back(Vector3(normal(rng), normal(rng), normal(rng)).normalized().cwiseProduct(semi_axes));
  return hullOf(p, name);
}

Geometry bar() {
  std::vector<Vector3> corners;
  for (double x : {-0.15, 0.15}) {
    for (double y : {-0.025, 0.025}) {
      for (double z : {-0.025, 0.025}) corners.emplace_back(x, y, z);
    }
  }
  return hullOf(corners, "bar");
}

Eigen::Matrix3d randomRotation(std::mt19937& rng) {
  std::normal_distribution<double> normal;
  return Eigen::Quaterniond(normal(rng), normal(rng), normal(rng), normal(rng)).normalized().toRotationMatrix();
}

void HullHull(benchmark::State& state) {
  std::mt19937 rng(1);
  const Geometry a = ellipsoidHull(rng, 32, Vector3(0.05, 0.04, 0.03), "a");
  const Geometry b = ellipsoidHull(rng, 32, Vector3(0.05, 0.04, 0.03), "b");
  std::uniform_real_distribution<double> gap(0.02, 0.09);
  std::normal_distribution<double> normal;
  std::vector<std::array<Plx, 2>> poses;
  double overlapping = 0.0;
  for (int k = 0; k < kPoses; ++k) {
    const Vector3 offset = gap(rng) * Vector3(normal(rng), normal(rng), normal(rng)).normalized();
    poses.push_back({Plx::fromPose(randomRotation(rng), Vector3::Zero()), Plx::fromPose(randomRotation(rng), offset)});
    overlapping += abdyn::convexDistance(a, poses.back()[0], b, poses.back()[1]).distance < 0.0;
  }
  std::size_t k = 0;
  for (auto _ : state) {
    const std::array<Plx, 2>& p = poses[k++ % poses.size()];
    benchmark::DoNotOptimize(abdyn::convexDistance(a, p[0], b, p[1]));
  }
  state.counters["overlapping"] = overlapping / kPoses;
}

void barOverTriangle(benchmark::State& state, double low, double high) {
  const Geometry g = bar();
  // A table triangle (top face z = 0), the bar's middle over it.
  const std::array<Vector3, 3> triangle{Vector3(-0.3, -0.3, 0.0), Vector3(0.3, -0.3, 0.0), Vector3(0.0, 0.3, 0.0)};
  std::mt19937 rng(2);
  std::uniform_real_distribution<double> u(-1.0, 1.0), height(low, high);
  std::vector<Plx> poses;
  double overlapping = 0.0;
  for (int k = 0; k < kPoses; ++k) {
    const Eigen::Matrix3d tilt = (Eigen::AngleAxisd(1e-5 * u(rng), Vector3::UnitX()) * Eigen::AngleAxisd(1e-5 * u(rng), Vector3::UnitY()) *
                                  Eigen::AngleAxisd(3.0 * u(rng), Vector3::UnitZ())).toRotationMatrix();
    poses.push_back(Plx::fromPose(tilt, Vector3(0.05 * u(rng), 0.05 * u(rng), 0.025 + height(rng))));
    overlapping += abdyn::convexTriangleDistance(g, poses.back(), triangle).distance < 0.0;
  }
  std::size_t k = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(abdyn::convexTriangleDistance(g, poses[k++ % poses.size()], triangle));
  }
  state.counters["overlapping"] = overlapping / kPoses;
}

void BarOnTriangle(benchmark::State& state) { barOverTriangle(state, -1e-5, 1e-5); }
void BarNearTriangle(benchmark::State& state) { barOverTriangle(state, 1e-3, 5e-3); }

void HullPlane(benchmark::State& state) {
  std::mt19937 rng(3);
  const Geometry foot = ellipsoidHull(rng, 40, Vector3::Constant(0.025), "foot");
  Geometry plane;
  plane.name = "ground";
  plane.shape = abdyn::ShapeType::Plane;
  std::uniform_real_distribution<double> height(-0.03, 0.03);
  std::vector<Plx> poses;
  for (int k = 0; k < kPoses; ++k) poses.push_back(Plx::fromPose(randomRotation(rng), Vector3(0.0, 0.0, height(rng))));
  std::size_t k = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(abdyn::convexDistance(plane, Plx(), foot, poses[k++ % poses.size()]));
  }
}

}  // namespace

BENCHMARK(HullHull);
BENCHMARK(BarOnTriangle);
BENCHMARK(BarNearTriangle);
BENCHMARK(HullPlane);
BENCHMARK_MAIN();
