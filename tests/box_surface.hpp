#pragma once
// The surface of a box as a triangle mesh whose faces are cut into squares, for the tests and benchmarks of
// static meshes (tests/test_static_mesh.cpp, test_static_mesh_fcl.cpp, bench/bench_mesh_scenes.cpp).

#include <algorithm>
#include <vector>

#include "abdyn/model/triangle_mesh.hpp"

namespace abdyn_test {

/// A closed box of the given size centred on `centre`, each face cut into d x d squares of two triangles,
/// wound counterclockwise seen from outside; points shared by faces are one vertex (so that every edge has
/// its two triangles).
inline abdyn::TriangleMesh boxSurface(const abdyn::Vector3& size, const abdyn::Vector3& centre, int d) {
  abdyn::TriangleMesh m;
  for (int axis = 0; axis < 3; ++axis) {
    for (double side : {-1.0, 1.0}) {
      const int u = (axis + 1) % 3, v = (axis + 2) % 3;
      std::vector<int> index;  // grid point (i, j) at i (d + 1) + j
      for (int i = 0; i <= d; ++i) {
        for (int j = 0; j <= d; ++j) {
          abdyn::Vector3 p;
          p[axis] = 0.5 * side * size[axis];
          p[u] = (static_cast<double>(i) / d - 0.5) * size[u];
          p[v] = (static_cast<double>(j) / d - 0.5) * size[v];
          const auto same = std::find(m.vertices.begin(), m.vertices.end(), centre + p);
          index.push_back(static_cast<int>(same - m.vertices.begin()));
          if (same == m.vertices.end()) m.vertices.push_back(centre + p);
        }
      }
      for (int i = 0; i < d; ++i) {
        for (int j = 0; j < d; ++j) {
          const auto at = [&](int k) { return index[static_cast<std::size_t>(k)]; };
          const int k = i * (d + 1) + j;
          const int a = at(k), b = at(k + d + 1), c = at(k + d + 2), e = at(k + 1);
          // (u, v, axis) is right-handed: a, b, c runs counterclockwise about +axis.
          if (side > 0) {
            m.triangles.push_back({a, b, c});
            m.triangles.push_back({a, c, e});
          } else {
            m.triangles.push_back({a, c, b});
            m.triangles.push_back({a, e, c});
          }
        }
      }
    }
  }
  return m;
}

}  // namespace abdyn_test
