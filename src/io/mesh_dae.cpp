// COLLADA through assimp (include/abdyn/io/mesh.hpp), compiled in when CMake found assimp and
// ABDYN_WITH_ASSIMP is on (ABDYN_HAVE_ASSIMP).
#include "abdyn/io/mesh.hpp"

#include <filesystem>
#include <system_error>

#include "abdyn/error.hpp"

#if ABDYN_HAVE_ASSIMP
#include <assimp/Importer.hpp>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#endif

namespace abdyn {

bool hasDaeReader() { return ABDYN_HAVE_ASSIMP != 0; }

#if ABDYN_HAVE_ASSIMP

namespace {

// Appends the triangles of `node` and its children, their vertices placed by the nodes' transforms
// (T_parent_node: node coordinates into the parent's).
void collect(const aiScene& scene, const aiNode& node, const aiMatrix4x4& T_file_parent, TriangleMesh& out,
             const std::string& path, const MeshLimits& limits) {
  const aiMatrix4x4 T_file_node = T_file_parent * node.mTransformation;
  for (unsigned m = 0; m < node.mNumMeshes; ++m) {
    const aiMesh& mesh = *scene.mMeshes[node.mMeshes[m]];
    const std::size_t base = out.vertices.size();
    if (base + mesh.mNumVertices > limits.max_vertices) {
      throw Error(path + ": more than " + std::to_string(limits.max_vertices) + " vertices (MeshLimits::max_vertices)");
    }
    for (unsigned v = 0; v < mesh.mNumVertices; ++v) {
      const aiVector3D p = T_file_node * mesh.mVertices[v];
      const Vector3 x(p.x, p.y, p.z);
      if (!x.allFinite()) throw Error(path + ": mesh '" + mesh.mName.C_Str() + "': a vertex coordinate is not finite");
      out.vertices.push_back(x);
    }
    for (unsigned f = 0; f < mesh.mNumFaces; ++f) {
      const aiFace& face = mesh.mFaces[f];
      if (face.mNumIndices != 3) continue;  // points and lines left by the triangulation
      if (out.triangles.size() >= limits.max_triangles) {
        throw Error(path + ": more than " + std::to_string(limits.max_triangles) + " triangles (MeshLimits::max_triangles)");
      }
      out.triangles.push_back({static_cast<int>(base + face.mIndices[0]), static_cast<int>(base + face.mIndices[1]),
                               static_cast<int>(base + face.mIndices[2])});
    }
  }
  for (unsigned c = 0; c < node.mNumChildren; ++c) collect(scene, *node.mChildren[c], T_file_node, out, path, limits);
}

}  // namespace

TriangleMesh readDae(const std::string& path, const MeshLimits& limits) {
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) throw Error(path + ": cannot read the mesh file (" + ec.message() + ")");
  if (size > limits.max_bytes) {
    throw Error(path + ": the mesh file has " + std::to_string(size) + " bytes, more than the limit of " +
                std::to_string(limits.max_bytes) + " (MeshLimits::max_bytes)");
  }
  Assimp::Importer importer;
  importer.SetPropertyBool(AI_CONFIG_IMPORT_COLLADA_IGNORE_UP_DIRECTION, true);
  const aiScene* scene = importer.ReadFile(path, aiProcess_Triangulate | aiProcess_JoinIdenticalVertices);
  if (scene == nullptr || scene->mRootNode == nullptr) {
    throw Error(path + ": cannot read the COLLADA file (assimp: " + importer.GetErrorString() + ")");
  }
  TriangleMesh mesh;
  collect(*scene, *scene->mRootNode, aiMatrix4x4(), mesh, path, limits);
  if (mesh.triangles.empty()) throw Error(path + ": the mesh has no triangle");
  return mesh;
}

#else

TriangleMesh readDae(const std::string& path, const MeshLimits&) {
  throw Error(path + ": this build of abdyn reads no COLLADA (.dae) files: it was built without assimp "
                     "(CMake option ABDYN_WITH_ASSIMP, Debian package libassimp-dev)");
}

#endif

}  // namespace abdyn
