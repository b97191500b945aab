#define BOOST_TEST_MODULE simplex_nearest
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <random>

#include <Eigen/Cholesky>

#include "abdyn/abdyn.hpp"
#include "test_helpers.hpp"

// GJK's distance sub-algorithm (abdyn::nearestOnSimplex, signed volumes) against two independent computations on
// random segments, triangles and tetrahedra (fixed seeds), fat and degenerate (repeated corners, three in a line,
// four in a plane, the origin on a face or inside):
// - the optimality conditions of the least-norm point p of the hull of the corners w_j: p is a convex combination of
//   them and no corner lies nearer the origin than p's plane, w_j . p >= |p|^2 (the gradient of |x|^2 at p points
//   into the hull). Both hold to rounding, 1e-12 for corners of size about 1 (the closed forms lose a few hundred
//   units in the last place at most);
// - every non-empty subset's affine hull projected on by the Gram system of its edges (an LDLT), the least
//   projection inside its own subset: the same distance to 1e-12 on simplices whose heights are 1e-3 or more.

using abdyn::SimplexNearest;
using abdyn::Vector3;

namespace {

using Corners = std::array<Vector3, 4>;

double bruteForceDistance(const Corners& w, int n) {
  double best = std::numeric_limits<double>::infinity();
  for (int mask = 1; mask < (1 << n); ++mask) {
    int idx[4], m = 0;
    for (int i = 0; i < n; ++i) {
      if (mask & (1 << i)) idx[m++] = i;
    }
    // |w_0 + E x|^2 least over x (the weights of the other corners; w_0's is 1 - sum x).
    Eigen::MatrixXd E(3, m - 1);
    for (int k = 1; k < m; ++k) E.col(k - 1) = w[static_cast<std::size_t>(idx[k])] - w[static_cast<std::size_t>(idx[0])];
    Eigen::VectorXd x = Eigen::VectorXd::Zero(m - 1);
    if (m > 1) x = (E.transpose() * E).ldlt().solve(-E.transpose() * w[static_cast<std::size_t>(idx[0])]);
    if (!(1.0 - x.sum() > 0.0) || (m > 1 && !(x.minCoeff() > 0.0))) continue;
    best = std::min(best, (w[static_cast<std::size_t>(idx[0])] + E * x).norm());
  }
  return best;
}

// The optimality conditions above; returns |p|.
double checkOptimal(const Corners& w, int n, const SimplexNearest& p, double tolerance) {
  BOOST_TEST_REQUIRE((p.count >= 1 && p.count <= n));
  double sum = 0.0;
  Vector3 combination = Vector3::Zero();
  for (int k = 0; k < p.count; ++k) {
    const int i = p.index[static_cast<std::size_t>(k)];
    BOOST_TEST((i >= 0 && i < n));
    if (k > 0) BOOST_TEST(i > p.index[static_cast<std::size_t>(k - 1)]);  // corners in their order
    BOOST_TEST(p.weight[static_cast<std::size_t>(k)] > 0.0);
    sum += p.weight[static_cast<std::size_t>(k)];
    combination += p.weight[static_cast<std::size_t>(k)] * w[static_cast<std::size_t>(i)];
  }
  BOOST_TEST(std::abs(sum - 1.0) <= tolerance);
  BOOST_TEST((combination - p.point).norm() <= tolerance);
  for (int j = 0; j < n; ++j) {
    BOOST_TEST(w[static_cast<std::size_t>(j)].dot(p.point) - p.point.squaredNorm() >= -tolerance,
               "corner " << j << " of " << n << " lies nearer the origin than the point found");
  }
  return p.point.norm();
}

Vector3 randomPoint(std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  return Vector3(u(rng), u(rng), u(rng));
}

// The least height of the simplex (1 for a segment or a point), to tell fat simplices from thin ones.
double leastHeight(const Corners& w, int n) {
  if (n < 3) return 1.0;
  const Vector3 e1 = w[1] - w[0], e2 = w[2] - w[0];
  if (n == 3) {
    const double longest = std::max({e1.norm(), e2.norm(), (e2 - e1).norm()});
    return e1.cross(e2).norm() / longest;
  }
  const Vector3 e3 = w[3] - w[0];
  const Vector3 n1 = e2.cross(e3), n2 = e3.cross(e1), n3 = e1.cross(e2);
  const double largest = std::max({n1.norm(), n2.norm(), n3.norm(), (n1 + n2 + n3).norm()});
  return std::abs(e1.dot(n1)) / largest;
}

}  // namespace

BOOST_AUTO_TEST_CASE(random_simplices) {
  std::mt19937 rng(7);
  int compared = 0, inside = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const int n = 1 + trial % 4;
    Corners w;
    const Vector3 shift = 0.4 * randomPoint(rng);  // the origin often inside or near
    for (int i = 0; i < n; ++i) w[static_cast<std::size_t>(i)] = shift + 0.5 * randomPoint(rng);
    const SimplexNearest p = abdyn::nearestOnSimplex(w, n);
    const double mine = checkOptimal(w, n, p, 1e-12);
    if (p.count == 4) {
      ++inside;
      BOOST_TEST(p.point.norm() == 0.0);
    }
    if (leastHeight(w, n) >= 1e-3) {
      ++compared;
      BOOST_TEST(std::abs(mine - bruteForceDistance(w, n)) <= 1e-12, "trial " << trial);
    }
  }
  BOOST_TEST_MESSAGE(compared << " simplices compared with the subsets' projections, " << inside << " holding the origin");
  BOOST_TEST(compared >= 19000);
  BOOST_TEST(inside >= 100);  // the tetrahedron's inside case is exercised
}

BOOST_AUTO_TEST_CASE(degenerate_simplices) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 2.0);
  for (int trial = 0; trial < 4000; ++trial) {
    const Vector3 a = randomPoint(rng), b = randomPoint(rng), c = randomPoint(rng);
    Corners w;
    int n = 0;
    switch (trial % 5) {
      case 0:  // a repeated corner
        w = {a, b, a, c};
        n = 2 + trial % 3;
        break;
      case 1:  // three corners in a line
        w = {a, b, a + u(rng) * (b - a), c};
        n = 3 + trial % 2;
        break;
      case 2:  // four corners in a plane
        w = {a, b, c, a + u(rng) * (b - a) + u(rng) * (c - a)};
        n = 4;
        break;
      case 3: {  // the origin on the plane of a flat tetrahedron: its nearest point lies on the sides
        const Vector3 normal = (b - a).cross(c - a).normalized();
        w = {a - normal.dot(a) * normal, b - normal.dot(b) * normal, c - normal.dot(c) * normal, Vector3::Zero()};
        w[3] = w[0] + u(rng) * (w[1] - w[0]) + u(rng) * (w[2] - w[0]);
        n = 4;
        break;
      }
      default:  // all corners the same point
        w = {a, a, a, a};
        n = 1 + trial % 4;
        break;
    }
    const SimplexNearest p = abdyn::nearestOnSimplex(w, n);
    checkOptimal(w, n, p, 1e-12);
  }
}

BOOST_AUTO_TEST_CASE(origin_on_a_face_and_at_a_corner) {
  // The origin on a triangle's side and at a corner: distance 0 with the smallest face holding it.
  const Corners side{Vector3(-1.0, 0.0, 0.0), Vector3(1.0, 0.0, 0.0), Vector3(0.0, 1.0, 0.0), Vector3::Zero()};
  const SimplexNearest on_side = abdyn::nearestOnSimplex(side, 3);
  BOOST_TEST(on_side.count == 2);
  BOOST_TEST(on_side.point.norm() == 0.0);
  BOOST_TEST(on_side.weight[0] == 0.5);
  const Corners corner{Vector3::Zero(), Vector3(1.0, 0.0, 0.0), Vector3(0.0, 1.0, 0.0), Vector3(0.0, 0.0, 1.0)};
  const SimplexNearest at_corner = abdyn::nearestOnSimplex(corner, 4);
  BOOST_TEST(at_corner.count == 1);
  BOOST_TEST(at_corner.index[0] == 0);
}

BOOST_AUTO_TEST_CASE(bad_input) {
  const Corners w{Vector3::Zero(), Vector3::UnitX(), Vector3::UnitY(), Vector3::UnitZ()};
  abdyn::test::checkError([&] { abdyn::nearestOnSimplex(w, 0); }, "abdyn::nearestOnSimplex", {"count is 0"});
  abdyn::test::checkError([&] { abdyn::nearestOnSimplex(w, 5); }, "abdyn::nearestOnSimplex", {"count is 5"});
  Corners nan = w;
  nan[2].y() = std::numeric_limits<double>::quiet_NaN();
  abdyn::test::checkError([&] { abdyn::nearestOnSimplex(nan, 3); }, "abdyn::nearestOnSimplex", {"corner 2", "not finite"});
}
