#pragma once
// Reading triangle meshes from files: STL (binary and ASCII) and Wavefront OBJ by abdyn itself, COLLADA
// (.dae) through assimp when the library was built with it (CMake option ABDYN_WITH_ASSIMP, on when assimp
// is found; hasDaeReader() says).
//
// What is read: the vertex positions and the triangles, in the file's units and coordinates (a caller
// scales them: URDF's mesh_scale). STL's facet normals, OBJ's texture coordinates, normals, groups,
// materials, lines and points are ignored. STL repeats each triangle's corners; identical corners (equal
// coordinates, bit for bit) become one shared vertex. OBJ polygons of n >= 3 corners become n - 2 triangles
// fanned from the first corner (exact for convex polygons, which exporters write); OBJ indices count from
// 1, negative ones back from the last vertex read so far. A COLLADA file's meshes are placed by their
// scene nodes and the file's <unit>; its <up_axis> is ignored (robot files are written in the robot's
// own axes).
//
// A binary STL is recognised by its size, 84 + 50 n bytes for the n triangles its header announces (some
// binary files start with "solid" too); otherwise a file starting with "solid" is read as ASCII.
//
// Every problem throws abdyn::Error, its message starting with the source (the path, or the name given to
// a parse* call) and naming the line or triangle at fault: a missing or unreadable file, a size that is
// neither binary nor ASCII STL, a token that is not a number, a non-finite coordinate, an index out of
// range, a face of fewer than three corners, no triangle at all, or a file beyond MeshLimits (checked
// before anything is allocated for it, so that a hostile file cannot exhaust memory).

#include <cstdint>
#include <string>

#include "abdyn/model/triangle_mesh.hpp"

namespace abdyn {

/// Bounds on the files the readers accept; far above any robot's collision or visual mesh (MuJoCo's
/// largest bundled meshes have some 10^5 triangles).
struct MeshLimits {
  std::uint64_t max_bytes = 512ull << 20;      ///< file size, 512 MiB
  std::uint64_t max_vertices = 16'000'000;     ///< distinct vertices kept
  std::uint64_t max_triangles = 16'000'000;    ///< triangles kept (after OBJ polygons are split)
};

/// Reads an STL file, binary or ASCII.
TriangleMesh readStl(const std::string& path, const MeshLimits& limits = {});
/// Reads a Wavefront OBJ file.
TriangleMesh readObj(const std::string& path, const MeshLimits& limits = {});
/// Reads a COLLADA file through assimp; throws abdyn::Error when the library was built without assimp.
TriangleMesh readDae(const std::string& path, const MeshLimits& limits = {});
/// Reads a mesh file by its extension, in any letter case: .stl, .obj, .dae. Throws abdyn::Error naming
/// the extension for any other.
TriangleMesh readMesh(const std::string& path, const MeshLimits& limits = {});

/// Reads STL bytes held in memory; `source` starts the messages.
TriangleMesh parseStl(const std::string& bytes, const std::string& source = "<string>", const MeshLimits& limits = {});
/// Reads OBJ text held in memory; `source` starts the messages.
TriangleMesh parseObj(const std::string& text, const std::string& source = "<string>", const MeshLimits& limits = {});

/// Whether this build reads COLLADA (.dae) files (assimp).
bool hasDaeReader();

}  // namespace abdyn
