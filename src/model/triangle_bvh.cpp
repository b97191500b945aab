#include "abdyn/model/triangle_bvh.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>

#include "abdyn/error.hpp"

namespace abdyn {
namespace {

// Deeper than any tree buildTriangleBvh makes: 2^64 leaves would hold more triangles than memory does.
constexpr int kMaxDepth = 64;

struct Build {
  std::vector<Vector3> centroid, lower, upper;  // per mesh triangle
  TriangleBvh& bvh;

  // Fills node `at` with the triangles bvh.triangles[begin, end).
  void node(int at, int begin, int end) {
    Vector3 lo = lower[static_cast<std::size_t>(bvh.triangles[static_cast<std::size_t>(begin)])];
    Vector3 hi = upper[static_cast<std::size_t>(bvh.triangles[static_cast<std::size_t>(begin)])];
    Vector3 c_lo = centroid[static_cast<std::size_t>(bvh.triangles[static_cast<std::size_t>(begin)])], c_hi = c_lo;
    for (int k = begin + 1; k < end; ++k) {
      const auto t = static_cast<std::size_t>(bvh.triangles[static_cast<std::size_t>(k)]);
      lo = lo.cwiseMin(lower[t]);
      hi = hi.cwiseMax(upper[t]);
      c_lo = c_lo.cwiseMin(centroid[t]);
      c_hi = c_hi.cwiseMax(centroid[t]);
    }
    bvh.nodes[static_cast<std::size_t>(at)].lower = lo;
    bvh.nodes[static_cast<std::size_t>(at)].upper = hi;
    if (end - begin <= kBvhLeafTriangles) {
      bvh.nodes[static_cast<std::size_t>(at)].first = begin;
      bvh.nodes[static_cast<std::size_t>(at)].count = end - begin;
      return;
    }
    Eigen::Index axis = 0;
    (c_hi - c_lo).maxCoeff(&axis);
    const int middle = begin + (end - begin) / 2;
    std::nth_element(bvh.triangles.begin() + begin, bvh.triangles.begin() + middle, bvh.triangles.begin() + end,
                     [&](int a, int b) {
                       return centroid[static_cast<std::size_t>(a)][axis] < centroid[static_cast<std::size_t>(b)][axis];
                     });
    const int left = static_cast<int>(bvh.nodes.size());
    bvh.nodes.emplace_back();
    bvh.nodes.emplace_back();
    bvh.nodes[static_cast<std::size_t>(at)].first = left;
    bvh.nodes[static_cast<std::size_t>(at)].count = 0;
    node(left, begin, middle);
    node(left + 1, middle, end);
  }
};

}  // namespace

void TriangleBvh::overlapping(const Vector3& lower, const Vector3& upper, std::vector<int>& out) const {
  out.clear();
  if (nodes.empty()) return;
  int stack[kMaxDepth + 1];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const Node& n = nodes[static_cast<std::size_t>(stack[--top])];
    if ((n.lower.array() > upper.array()).any() || (lower.array() > n.upper.array()).any()) continue;
    if (n.count > 0) {
      for (int k = n.first; k < n.first + n.count; ++k) out.push_back(triangles[static_cast<std::size_t>(k)]);
    } else {
      stack[top++] = n.first + 1;
      stack[top++] = n.first;
    }
  }
}

TriangleBvh buildTriangleBvh(const TriangleMesh& mesh) {
  TriangleBvh bvh;
  const std::size_t n = mesh.triangles.size();
  const int nv = static_cast<int>(mesh.vertices.size());
  Build build{std::vector<Vector3>(n), std::vector<Vector3>(n), std::vector<Vector3>(n), bvh};
  bvh.normals.assign(n, Vector3::Zero());
  bvh.opposite.assign(n, {-1, -1, -1});
  // Undirected edge (smaller vertex, larger vertex) -> the triangles using it (at most two are kept).
  std::unordered_map<std::uint64_t, std::array<int, 2>> edges;
  const auto edgeKey = [](int a, int b) {
    return (static_cast<std::uint64_t>(std::min(a, b)) << 32) | static_cast<std::uint64_t>(std::max(a, b));
  };
  for (std::size_t t = 0; t < n; ++t) {
    const auto& tri = mesh.triangles[t];
    for (int i : tri) {
      if (i < 0 || i >= nv) {
        throw InvalidArgument("abdyn::buildTriangleBvh: triangle " + std::to_string(t) + " names vertex " +
                              std::to_string(i) + " of a mesh of " + std::to_string(nv));
      }
    }
    const Vector3& a = mesh.vertices[static_cast<std::size_t>(tri[0])];
    const Vector3& b = mesh.vertices[static_cast<std::size_t>(tri[1])];
    const Vector3& c = mesh.vertices[static_cast<std::size_t>(tri[2])];
    const Vector3 normal = (b - a).cross(c - a);
    const double scale = std::max({(b - a).squaredNorm(), (c - a).squaredNorm(), (c - b).squaredNorm()});
    if (!(normal.norm() > 1e-12 * scale)) continue;  // no area: no surface to touch
    bvh.normals[t] = normal.normalized();
    build.centroid[t] = (a + b + c) / 3.0;
    build.lower[t] = a.cwiseMin(b).cwiseMin(c);
    build.upper[t] = a.cwiseMax(b).cwiseMax(c);
    bvh.triangles.push_back(static_cast<int>(t));
    for (int e = 0; e < 3; ++e) {
      auto [it, fresh] = edges.try_emplace(edgeKey(tri[static_cast<std::size_t>(e)], tri[static_cast<std::size_t>((e + 1) % 3)]),
                                           std::array<int, 2>{static_cast<int>(t), -1});
      if (!fresh && it->second[1] < 0 && it->second[0] != static_cast<int>(t)) it->second[1] = static_cast<int>(t);
    }
  }
  for (const int t : bvh.triangles) {
    const auto& tri = mesh.triangles[static_cast<std::size_t>(t)];
    for (int e = 0; e < 3; ++e) {
      const int a = tri[static_cast<std::size_t>(e)], b = tri[static_cast<std::size_t>((e + 1) % 3)];
      const std::array<int, 2>& users = edges.at(edgeKey(a, b));
      const int other = users[0] == t ? users[1] : users[0];
      if (other < 0) continue;
      for (int v : mesh.triangles[static_cast<std::size_t>(other)]) {
        if (v != a && v != b) bvh.opposite[static_cast<std::size_t>(t)][static_cast<std::size_t>(e)] = v;
      }
    }
  }
  if (bvh.triangles.empty()) return bvh;
  bvh.nodes.reserve(2 * bvh.triangles.size());
  bvh.nodes.emplace_back();
  build.node(0, 0, static_cast<int>(bvh.triangles.size()));
  return bvh;
}

}  // namespace abdyn
