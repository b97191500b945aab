#define BOOST_TEST_MODULE mesh_io
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "abdyn/abdyn.hpp"
#include "test_helpers.hpp"

// The STL, OBJ and COLLADA readers (include/abdyn/io/mesh.hpp) on small files written here, on malformed and
// hostile files (each refused with abdyn::Error naming the source and the fault), and the convex hull
// (include/abdyn/model/convex_hull.hpp) against the hull known by construction.

using abdyn::TriangleMesh;
using abdyn::Vector3;

namespace {

// The unit tetrahedron's corners and its four outward triangles.
const std::vector<Vector3> kTetra = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
const int kTetraFaces[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};

std::string binaryStl(const std::vector<std::array<Vector3, 3>>& triangles, const std::string& header = "binary") {
  std::string bytes(80, ' ');
  std::memcpy(bytes.data(), header.data(), std::min<std::size_t>(header.size(), 80));
  const std::uint32_t n = static_cast<std::uint32_t>(triangles.size());
  bytes.append(reinterpret_cast<const char*>(&n), 4);
  for (const auto& t : triangles) {
    float record[12] = {};
    for (int c = 0; c < 3; ++c) {
      for (int k = 0; k < 3; ++k) record[3 + 3 * c + k] = static_cast<float>(t[static_cast<std::size_t>(c)][k]);
    }
    bytes.append(reinterpret_cast<const char*>(record), sizeof(record));
    bytes.append(2, '\0');  // attribute byte count
  }
  return bytes;
}

std::vector<std::array<Vector3, 3>> tetraTriangles() {
  std::vector<std::array<Vector3, 3>> t;
  for (const auto& f : kTetraFaces) t.push_back({kTetra[f[0]], kTetra[f[1]], kTetra[f[2]]});
  return t;
}

std::string asciiStl(const std::vector<std::array<Vector3, 3>>& triangles) {
  std::string s = "solid tetra\n";
  for (const auto& t : triangles) {
    s += "  facet normal 0 0 0\n    outer loop\n";
    for (const Vector3& p : t) s += "      vertex " + std::to_string(p.x()) + " " + std::to_string(p.y()) + " " + std::to_string(p.z()) + "\n";
    s += "    endloop\n  endfacet\n";
  }
  return s + "endsolid tetra\n";
}

// The mesh has the tetrahedron's corners and its four faces (as vertex sets, in any order and rotation).
void checkTetra(const TriangleMesh& mesh) {
  BOOST_TEST_REQUIRE(mesh.vertices.size() == 4u);
  BOOST_TEST_REQUIRE(mesh.triangles.size() == 4u);
  for (std::size_t t = 0; t < 4; ++t) {
    for (int c = 0; c < 3; ++c) {
      BOOST_TEST((mesh.vertices[static_cast<std::size_t>(mesh.triangles[t][static_cast<std::size_t>(c)])] -
                  kTetra[static_cast<std::size_t>(kTetraFaces[t][c])]).norm() == 0.0);
    }
  }
}

void checkRefused(const std::function<void()>& read, const std::string& source, const std::string& fault) {
  abdyn::test::checkError(read, source, {fault});
}

std::string writeFile(const std::string& name, const std::string& bytes) {
  const std::string path = abdyn::test::temporaryPath(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

}  // namespace

BOOST_AUTO_TEST_CASE(stl_binary_and_ascii) {
  checkTetra(abdyn::parseStl(binaryStl(tetraTriangles())));
  checkTetra(abdyn::parseStl(asciiStl(tetraTriangles())));
  // A binary file whose header starts with "solid" (some exporters write that) is told apart by its size.
  checkTetra(abdyn::parseStl(binaryStl(tetraTriangles(), "solid exported as binary")));
  // Windows line ends and blank lines.
  std::string crlf;
  for (char c : asciiStl(tetraTriangles())) crlf += c == '\n' ? std::string("\r\n\r\n") : std::string(1, c);
  checkTetra(abdyn::parseStl(crlf));
  const std::string path = writeFile("tetra.STL", binaryStl(tetraTriangles()));
  checkTetra(abdyn::readMesh(path));  // by extension, any letter case
  checkTetra(abdyn::readStl(path));
  std::filesystem::remove(path);
}

BOOST_AUTO_TEST_CASE(obj_polygons_and_indices) {
  // A unit cube: six quads (one with negative indices, one with texture and normal indices) split into 12 triangles.
  const std::string obj =
      "# cube\nmtllib cube.mtl\no cube\n"
      "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
      "vt 0 0\nvn 0 0 1\ns off\nusemtl grey\n"
      "f 1 4 3 2\nf 5 6 7 8\nf 1/1 2/1 6/1 5/1\nf 2//1 3//1 7//1 6//1\nf -5 -1 -2 -6\nf 4/1/1 1/1/1 5/1/1 8/1/1\n";
  const TriangleMesh mesh = abdyn::parseObj(obj);
  BOOST_TEST(mesh.vertices.size() == 8u);
  BOOST_TEST(mesh.triangles.size() == 12u);
  // Closed and outward: the signed volume sum (a . (b x c)) / 6 over the triangles is the cube's volume, 1.
  double volume = 0.0;
  for (const auto& t : mesh.triangles) {
    volume += mesh.vertices[static_cast<std::size_t>(t[0])].dot(
                  mesh.vertices[static_cast<std::size_t>(t[1])].cross(mesh.vertices[static_cast<std::size_t>(t[2])])) / 6.0;
  }
  BOOST_TEST(volume == 1.0, boost::test_tools::tolerance(1e-15));
  const std::string path = writeFile("cube.obj", obj);
  BOOST_TEST(abdyn::readMesh(path).triangles.size() == 12u);
  std::filesystem::remove(path);
}

BOOST_AUTO_TEST_CASE(malformed_stl_refused) {
  const auto stl = [](const std::string& bytes) { return [bytes] { abdyn::parseStl(bytes, "bad.stl"); }; };
  std::string truncated = binaryStl(tetraTriangles());
  truncated.resize(truncated.size() - 7);
  checkRefused(stl(truncated), "bad.stl", "not 84 + 50 n");
  checkRefused(stl(""), "bad.stl", "not 84 + 50 n");
  // A header announcing 4 billion triangles over a small file is not believed (nothing is allocated for it).
  std::string absurd = binaryStl(tetraTriangles());
  const std::uint32_t huge = 0xFFFFFFFFu;
  std::memcpy(absurd.data() + 80, &huge, 4);
  checkRefused(stl(absurd), "bad.stl", "not an STL file");
  std::vector<std::array<Vector3, 3>> nan_triangle = tetraTriangles();
  nan_triangle[2][1].y() = std::numeric_limits<double>::quiet_NaN();
  checkRefused(stl(binaryStl(nan_triangle)), "bad.stl", "triangle 2: a vertex coordinate is not finite");
  checkRefused(stl(binaryStl({})), "bad.stl", "no triangle");
  const std::string facet = "solid x\nfacet normal 0 0 1\nouter loop\n";
  checkRefused(stl(facet + "vertex 0 0 0\nvertex 1 0 0\nvertex 0 1 nan\nendloop\nendfacet\nendsolid\n"), "bad.stl",
               "line 6: 'nan' is not a finite number");
  checkRefused(stl(facet + "vertex 0 0 0\nvertex 1 0 0\nvertex 0 1 1e999\nendloop\nendfacet\n"), "bad.stl",
               "'1e999' is not a finite number");
  checkRefused(stl(facet + "vertex 0 0 0\nvertex 1 0 0\nvertex 0 1\nendloop\n"), "bad.stl", "line 6: 'vertex' needs three numbers");
  checkRefused(stl(facet + "vertex 0 0 0\nvertex 1 0 0\nendloop\n"), "bad.stl", "line 6: a facet's loop has 2 vertices");
  checkRefused(stl(facet + "vertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nvertex 1 1 0\n"), "bad.stl",
               "line 7: a facet has more than three vertices");
  checkRefused(stl(facet + "vertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\n"), "bad.stl", "ends inside a facet");
  checkRefused(stl("solid x\nvertex 0 0 0\n"), "bad.stl", "line 2: 'vertex' outside 'outer loop'");
  checkRefused(stl("solid x\nfacet normal 0 0 1\nouter loop\nouter loop\n"), "bad.stl", "line 4: 'outer loop' inside another");
  checkRefused(stl("solid x\nbanana\n"), "bad.stl", "line 2: unknown ASCII STL keyword 'banana'");
  checkRefused(stl("solid x\nendsolid x\n"), "bad.stl", "no triangle");
  // A tiny value underflows to zero, as the URDF reader's numbers do.
  BOOST_TEST(abdyn::parseStl(facet + "vertex 0 0 0\nvertex 1 0 0\nvertex 0 1 1e-400\nendloop\nendfacet\n").vertices[2].z() == 0.0);
}

BOOST_AUTO_TEST_CASE(malformed_obj_refused) {
  const auto obj = [](const std::string& text) { return [text] { abdyn::parseObj(text, "bad.obj"); }; };
  const std::string v = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
  checkRefused(obj(v + "f 1 2 4\n"), "bad.obj", "line 4: vertex index 4 is out of range (3 vertices read so far)");
  checkRefused(obj(v + "f 1 2 -4\n"), "bad.obj", "vertex index -4 is out of range");
  checkRefused(obj(v + "f 0 1 2\n"), "bad.obj", "line 4: '0' is not a vertex index");
  checkRefused(obj(v + "f 1 2 x\n"), "bad.obj", "'x' is not a vertex index");
  checkRefused(obj(v + "f 1 2 99999999999999999999\n"), "bad.obj", "is not a vertex index");
  checkRefused(obj(v + "f 1 2\n"), "bad.obj", "line 4: a face needs at least three vertices");
  checkRefused(obj(v + "f\n"), "bad.obj", "a face needs at least three vertices");
  checkRefused(obj("v 0 0\n"), "bad.obj", "line 1: 'v' needs three numbers");
  checkRefused(obj("v 0 0 inf\n"), "bad.obj", "'inf' is not a finite number");
  checkRefused(obj("v 0,5 0 0\n"), "bad.obj", "'0,5' is not a finite number");
  checkRefused(obj(v), "bad.obj", "no triangle");
  checkRefused(obj(""), "bad.obj", "no triangle");
  // A face of a thousand corners becomes 998 triangles, as many as the limit allows and no more.
  std::string fan;
  for (int k = 0; k < 1000; ++k) fan += "v " + std::to_string(k) + " " + std::to_string(k * k) + " 0\n";
  fan += "f";
  for (int k = 1; k <= 1000; ++k) fan += " " + std::to_string(k);
  abdyn::MeshLimits limits;
  BOOST_TEST(abdyn::parseObj(fan).triangles.size() == 998u);
  limits.max_triangles = 997;
  checkRefused([&] { abdyn::parseObj(fan, "fan.obj", limits); }, "fan.obj", "more than 997 triangles (MeshLimits::max_triangles)");
  limits = {};
  limits.max_vertices = 999;
  checkRefused([&] { abdyn::parseObj(fan, "fan.obj", limits); }, "fan.obj", "line 1000: more than 999 vertices");
  limits = {};
  limits.max_bytes = 100;
  checkRefused([&] { abdyn::parseObj(fan, "fan.obj", limits); }, "fan.obj", "more than the limit of 100 (MeshLimits::max_bytes)");
  // A binary STL announcing more triangles than the limit is refused before its triangles are read.
  limits = {};
  limits.max_triangles = 3;
  checkRefused([&] { abdyn::parseStl(binaryStl(tetraTriangles()), "four.stl", limits); }, "four.stl",
               "announces 4 triangles, more than the limit of 3");
}

BOOST_AUTO_TEST_CASE(files_refused) {
  const std::string missing = abdyn::test::temporaryPath("no_such_mesh.stl");
  checkRefused([&] { abdyn::readMesh(missing); }, missing, "cannot read the mesh file");
  const std::string ply = writeFile("mesh.ply", "ply\n");
  checkRefused([&] { abdyn::readMesh(ply); }, ply, "unknown mesh format '.ply'");
  std::filesystem::remove(ply);
  abdyn::MeshLimits limits;
  limits.max_bytes = 10;
  const std::string big = writeFile("big.stl", binaryStl(tetraTriangles()));
  checkRefused([&] { abdyn::readMesh(big, limits); }, big, "the mesh file has 284 bytes, more than the limit of 10");
  std::filesystem::remove(big);
}

BOOST_AUTO_TEST_CASE(collada) {
  const std::string path = abdyn::test::temporaryPath("tetra.dae");
  if (!abdyn::hasDaeReader()) {
    checkRefused([&] { abdyn::readMesh(path); }, path, "built without assimp");
    return;
  }
  // The tetrahedron in millimetres, its node moved by 1 m along x: the reader applies the node and the unit.
  std::ofstream(path) << R"(<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit meter="0.001" name="millimeter"/><up_axis>Z_UP</up_axis></asset>
  <library_geometries>
    <geometry id="tetra" name="tetra"><mesh>
      <source id="tetra-positions"><float_array id="tetra-array" count="12">0 0 0 1000 0 0 0 1000 0 0 0 1000</float_array>
        <technique_common><accessor source="#tetra-array" count="4" stride="3">
          <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
        </accessor></technique_common></source>
      <vertices id="tetra-vertices"><input semantic="POSITION" source="#tetra-positions"/></vertices>
      <triangles count="4"><input semantic="VERTEX" source="#tetra-vertices" offset="0"/><p>0 2 1 0 1 3 0 3 2 1 2 3</p></triangles>
    </mesh></geometry>
  </library_geometries>
  <library_visual_scenes><visual_scene id="scene"><node id="n" name="n">
    <matrix>1 0 0 1000 0 1 0 0 0 0 1 0 0 0 0 1</matrix><instance_geometry url="#tetra"/></node></visual_scene></library_visual_scenes>
  <scene><instance_visual_scene url="#scene"/></scene>
</COLLADA>
)";
  const TriangleMesh mesh = abdyn::readMesh(path);
  BOOST_TEST_REQUIRE(mesh.triangles.size() == 4u);
  BOOST_TEST_REQUIRE(mesh.vertices.size() == 4u);
  for (const auto& t : mesh.triangles) {
    for (int c = 0; c < 3; ++c) {
      const Vector3 p = mesh.vertices[static_cast<std::size_t>(t[static_cast<std::size_t>(c)])];
      bool found = false;
      for (const Vector3& corner : kTetra) found |= (p - (corner + Vector3(1, 0, 0))).norm() < 1e-6;  // float precision
      BOOST_TEST(found, "vertex " << p.transpose() << " is no corner of the tetrahedron moved by 1 m");
    }
  }
  std::ofstream(path) << "<COLLADA><library_geometries><geometry";
  checkRefused([&] { abdyn::readMesh(path); }, path, "cannot read the COLLADA file");
  std::filesystem::remove(path);
}

// Points of a cube's surface and inside: the hull is the cube's 8 corners and 6 square faces.
BOOST_AUTO_TEST_CASE(convex_hull_of_a_cube) {
  std::vector<Vector3> points;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  for (int k = 0; k < 200; ++k) points.emplace_back(u(rng), u(rng), u(rng));  // inside
  for (int k = 0; k < 200; ++k) {                                               // on the faces
    Vector3 p(u(rng), u(rng), u(rng));
    p[k % 3] = k % 2 ? 0.5 : -0.5;
    points.push_back(p);
  }
  for (int c = 0; c < 8; ++c) points.emplace_back(c & 1 ? 0.5 : -0.5, c & 2 ? 0.5 : -0.5, c & 4 ? 0.5 : -0.5);
  const abdyn::ConvexHull hull = abdyn::convexHull(points, 0, "cube");
  BOOST_TEST(hull.vertexCount() == 8);
  BOOST_TEST_REQUIRE(hull.faces.size() == 6u);
  for (std::size_t f = 0; f < hull.faces.size(); ++f) {
    BOOST_TEST(hull.faces[f].size() == 4u);
    BOOST_TEST(hull.normals[f].cwiseAbs().maxCoeff() == 1.0, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(hull.offsets[f] == 0.5, boost::test_tools::tolerance(1e-12));
    // Counterclockwise seen from outside: consecutive edges turn about the outward normal.
    const auto& face = hull.faces[f];
    for (std::size_t k = 0; k < face.size(); ++k) {
      const Vector3& a = hull.vertices[static_cast<std::size_t>(face[k])];
      const Vector3& b = hull.vertices[static_cast<std::size_t>(face[(k + 1) % face.size()])];
      const Vector3& c = hull.vertices[static_cast<std::size_t>(face[(k + 2) % face.size()])];
      BOOST_TEST((b - a).cross(c - b).dot(hull.normals[f]) > 0.0);
    }
  }
  for (const Vector3& p : points) {
    for (std::size_t f = 0; f < hull.faces.size(); ++f) BOOST_TEST(hull.normals[f].dot(p) <= hull.offsets[f] + 1e-12);
  }
  // Neighbours: a cube's vertex shares faces with the 6 others of its three faces (3 edges, 3 face diagonals).
  BOOST_TEST_REQUIRE(hull.neighbor_offsets.size() == 9u);
  for (int i = 0; i < 8; ++i) {
    BOOST_TEST(hull.neighbor_offsets[static_cast<std::size_t>(i) + 1] - hull.neighbor_offsets[static_cast<std::size_t>(i)] == 6);
    for (int k = hull.neighbor_offsets[static_cast<std::size_t>(i)]; k < hull.neighbor_offsets[static_cast<std::size_t>(i) + 1]; ++k) {
      const Vector3 d = hull.vertices[static_cast<std::size_t>(hull.neighbors[static_cast<std::size_t>(k)])] -
                        hull.vertices[static_cast<std::size_t>(i)];
      BOOST_TEST((d.cwiseAbs().array() < 0.5).count() >= 1);  // on a common face: a coordinate equal
    }
  }
  // Bounded to 6 vertices: a hull of input points with at most 6 vertices.
  const abdyn::ConvexHull bounded = abdyn::convexHull(points, 6, "cube");
  BOOST_TEST(bounded.vertexCount() <= 6);
  BOOST_TEST(bounded.vertexCount() >= 4);
}

BOOST_AUTO_TEST_CASE(convex_hull_refusals) {
  const auto refused = [](const std::vector<Vector3>& points, int max_vertices, const std::string& fault) {
    checkRefused([&] { abdyn::convexHull(points, max_vertices, "part"); }, "abdyn::convexHull(part)", fault);
  };
  refused({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, 0, "3 points span no volume");
  refused({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {2, 3, 0}}, 0, "the points span no volume (Qhull:");
  refused(kTetra, 3, "max_vertices must be 0 (no bound) or at least 4, got 3");
  refused({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, std::numeric_limits<double>::infinity()}}, 0, "non-finite coordinate");
}
