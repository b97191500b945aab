// libFuzzer target: the STL and OBJ readers and the convex hull of whatever they read.
//
// The contract under test (include/abdyn/io/mesh.hpp, model/convex_hull.hpp): any input either reads or
// throws abdyn::Error; nothing crashes, hangs, reads out of bounds, overflows or throws anything else.
// Built by -DABDYN_FUZZ=ON with clang like fuzz_urdf (fuzz/CMakeLists.txt); fuzz_mesh_replay runs the
// same function over fuzz/mesh_regressions/ in every build.

#include <cstddef>
#include <cstdint>
#include <string>

#include "abdyn/abdyn.hpp"

namespace {

// Small limits keep each run fast; the readers' code paths are the same at any size.
abdyn::MeshLimits fuzzLimits() {
  abdyn::MeshLimits limits;
  limits.max_vertices = 4096;
  limits.max_triangles = 4096;
  return limits;
}

void hull(const abdyn::TriangleMesh& mesh) {
  try {
    abdyn::convexHull(mesh.vertices, 0, "fuzz");
    abdyn::convexHull(mesh.vertices, 8, "fuzz");
  } catch (const abdyn::Error&) {  // flat or too few points
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(bytes), size);
  const abdyn::MeshLimits limits = fuzzLimits();
  for (bool stl : {true, false}) {
    try {
      hull(stl ? abdyn::parseStl(text, "fuzz.stl", limits) : abdyn::parseObj(text, "fuzz.obj", limits));
    } catch (const abdyn::Error&) {  // refused: the contract allows it
    }
  }
  return 0;
}
