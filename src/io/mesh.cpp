#include "abdyn/io/mesh.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>
#include <system_error>
#include <unordered_map>

#include "abdyn/error.hpp"

namespace abdyn {
namespace {

[[noreturn]] void refuse(const std::string& source, const std::string& what) { throw Error(source + ": " + what); }

std::string lineText(std::uint64_t line) { return "line " + std::to_string(line) + ": "; }

// The file's bytes, refused before reading when larger than the limit.
std::string readFile(const std::string& path, const MeshLimits& limits) {
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) refuse(path, "cannot read the mesh file (" + ec.message() + ")");
  if (size > limits.max_bytes) {
    refuse(path, "the mesh file has " + std::to_string(size) + " bytes, more than the limit of " +
                     std::to_string(limits.max_bytes) + " (MeshLimits::max_bytes)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) refuse(path, "cannot open the mesh file");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) refuse(path, "reading the mesh file failed");
  return bytes;
}

// Shares vertices with equal coordinates (STL repeats a triangle's corners) and counts against the limits.
class MeshBuilder {
 public:
  MeshBuilder(const std::string& source, const MeshLimits& limits) : source_(source), limits_(limits) {}

  int sharedVertex(const Vector3& p, const std::string& where) {
    const auto found = index_.find(Key{p.x(), p.y(), p.z()});
    if (found != index_.end()) return found->second;
    const int k = addVertex(p, where);
    index_.emplace(Key{p.x(), p.y(), p.z()}, k);
    return k;
  }
  int addVertex(const Vector3& p, const std::string& where) {
    if (!p.allFinite()) refuse(source_, where + "a vertex coordinate is not finite");
    if (mesh_.vertices.size() >= limits_.max_vertices) {
      refuse(source_, where + "more than " + std::to_string(limits_.max_vertices) + " vertices (MeshLimits::max_vertices)");
    }
    mesh_.vertices.push_back(p);
    return static_cast<int>(mesh_.vertices.size() - 1);
  }
  void addTriangle(int a, int b, int c, const std::string& where) {
    if (mesh_.triangles.size() >= limits_.max_triangles) {
      refuse(source_, where + "more than " + std::to_string(limits_.max_triangles) + " triangles (MeshLimits::max_triangles)");
    }
    mesh_.triangles.push_back({a, b, c});
  }
  std::size_t vertexCount() const { return mesh_.vertices.size(); }
  TriangleMesh finish() {
    if (mesh_.triangles.empty()) refuse(source_, "the mesh has no triangle");
    return std::move(mesh_);
  }

 private:
  struct Key {
    double x, y, z;
    bool operator==(const Key& o) const {
      return std::memcmp(this, &o, sizeof(Key)) == 0;  // bit for bit: -0 and 0 stay apart, as the file wrote them
    }
  };
  struct Hash {
    std::size_t operator()(const Key& k) const {
      std::uint64_t h[3];
      std::memcpy(h, &k, sizeof(h));
      return static_cast<std::size_t>(h[0] * 0x9E3779B97F4A7C15ull ^ (h[1] + 0x632BE59BD9B4E019ull) * 31 ^ h[2]);
    }
  };
  const std::string& source_;
  const MeshLimits& limits_;
  TriangleMesh mesh_;
  std::unordered_map<Key, int, Hash> index_;
};

// A finite decimal number, read independently of the locale. False for anything else.
bool parseNumber(std::string_view word, double& out) {
  if (!word.empty() && word.front() == '+') word.remove_prefix(1);
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), out);
  if (ec == std::errc::result_out_of_range) {
    // Underflow (a negative exponent) reads as zero; overflow is refused.
    const std::size_t e = word.find_first_of("eE");
    out = 0.0;
    return e != std::string_view::npos && e + 1 < word.size() && word[e + 1] == '-' && end == word.data() + word.size();
  }
  return ec == std::errc() && end == word.data() + word.size() && std::isfinite(out);
}

// Splits text into lines and lines into words separated by spaces or tabs, counting lines.
class Lines {
 public:
  explicit Lines(std::string_view text) : text_(text) {}
  bool next(std::string_view& line) {
    if (at_ >= text_.size()) return false;
    const std::size_t end = std::min(text_.find('\n', at_), text_.size());
    line = text_.substr(at_, end - at_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    at_ = end + 1;
    ++number_;
    return true;
  }
  std::uint64_t number() const { return number_; }

 private:
  std::string_view text_;
  std::size_t at_ = 0;
  std::uint64_t number_ = 0;
};

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r'; }

// The next word of `line` from `at`; empty at the end.
std::string_view word(std::string_view line, std::size_t& at) {
  while (at < line.size() && isBlank(line[at])) ++at;
  const std::size_t begin = at;
  while (at < line.size() && !isBlank(line[at])) ++at;
  return line.substr(begin, at - begin);
}

std::string quotedWord(std::string_view w) {
  constexpr std::size_t kShown = 40;
  return "'" + std::string(w.substr(0, kShown)) + (w.size() > kShown ? "...'" : "'");
}

TriangleMesh parseBinaryStl(const std::string& bytes, const std::string& source, const MeshLimits& limits,
                            std::uint32_t count) {
  if (count > limits.max_triangles) {
    refuse(source, "binary STL announces " + std::to_string(count) + " triangles, more than the limit of " +
                       std::to_string(limits.max_triangles) + " (MeshLimits::max_triangles)");
  }
  MeshBuilder mesh(source, limits);
  for (std::uint32_t t = 0; t < count; ++t) {
    const char* record = bytes.data() + 84 + 50 * static_cast<std::size_t>(t);
    const std::string where = "triangle " + std::to_string(t) + ": ";
    int corner[3];
    for (int c = 0; c < 3; ++c) {
      float xyz[3];  // little-endian IEEE 754 single precision, as STL specifies (and every machine abdyn runs on)
      std::memcpy(xyz, record + 12 + 12 * c, sizeof(xyz));
      corner[c] = mesh.sharedVertex(Vector3(xyz[0], xyz[1], xyz[2]), where);
    }
    mesh.addTriangle(corner[0], corner[1], corner[2], where);
  }
  return mesh.finish();
}

// solid NAME / facet normal n n n / outer loop / vertex x y z (three times) / endloop / endfacet / ... / endsolid
TriangleMesh parseAsciiStl(const std::string& text, const std::string& source, const MeshLimits& limits) {
  MeshBuilder mesh(source, limits);
  Lines lines(text);
  std::string_view line;
  int corners[3];
  int corner_count = 0;
  bool in_loop = false;
  while (lines.next(line)) {
    std::size_t at = 0;
    const std::string_view key = word(line, at);
    const std::string where = lineText(lines.number());
    if (key == "vertex") {
      if (!in_loop) refuse(source, where + "'vertex' outside 'outer loop'");
      if (corner_count == 3) refuse(source, where + "a facet has more than three vertices");
      double xyz[3];
      for (double& x : xyz) {
        const std::string_view w = word(line, at);
        if (w.empty()) refuse(source, where + "'vertex' needs three numbers");
        if (!parseNumber(w, x)) refuse(source, where + quotedWord(w) + " is not a finite number");
      }
      corners[corner_count++] = mesh.sharedVertex(Vector3(xyz[0], xyz[1], xyz[2]), where);
    } else if (key == "outer") {
      if (in_loop) refuse(source, where + "'outer loop' inside another");
      in_loop = true;
      corner_count = 0;
    } else if (key == "endloop") {
      if (!in_loop || corner_count != 3) {
        refuse(source, where + "a facet's loop has " + std::to_string(corner_count) + " vertices, not three");
      }
      in_loop = false;
      mesh.addTriangle(corners[0], corners[1], corners[2], where);
    } else if (key == "solid" || key == "facet" || key == "endfacet" || key == "endsolid" || key.empty()) {
      continue;  // normals are recomputed by whoever needs them
    } else {
      refuse(source, where + "unknown ASCII STL keyword " + quotedWord(key));
    }
  }
  if (in_loop) refuse(source, "the file ends inside a facet");
  return mesh.finish();
}

// The OBJ index `w` ("7", "7/1", "7//3", "-1/2/3") as a 0-based vertex index.
int objIndex(std::string_view w, std::size_t vertex_count, const std::string& source, const std::string& where) {
  const std::string_view number = w.substr(0, w.find('/'));
  long long k = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), k);
  if (ec != std::errc() || end != number.data() + number.size() || k == 0) {
    refuse(source, where + quotedWord(w) + " is not a vertex index (1-based, or negative from the last vertex)");
  }
  const long long n = static_cast<long long>(vertex_count);
  const long long index = k > 0 ? k - 1 : n + k;
  if (index < 0 || index >= n) {
    refuse(source, where + "vertex index " + std::to_string(k) + " is out of range (" + std::to_string(n) +
                       " vertices read so far)");
  }
  return static_cast<int>(index);
}

}  // namespace

TriangleMesh parseStl(const std::string& bytes, const std::string& source, const MeshLimits& limits) {
  if (bytes.size() > limits.max_bytes) {
    refuse(source, "the mesh has " + std::to_string(bytes.size()) + " bytes, more than the limit of " +
                       std::to_string(limits.max_bytes) + " (MeshLimits::max_bytes)");
  }
  if (bytes.size() >= 84) {
    std::uint32_t count = 0;  // little-endian, as STL specifies
    std::memcpy(&count, bytes.data() + 80, sizeof(count));
    if (bytes.size() == 84 + 50 * static_cast<std::uint64_t>(count)) return parseBinaryStl(bytes, source, limits, count);
  }
  std::size_t at = 0;
  if (word(std::string_view(bytes).substr(0, bytes.find('\n')), at) == "solid") return parseAsciiStl(bytes, source, limits);
  refuse(source, "not an STL file: " + std::to_string(bytes.size()) +
                     " bytes, which is not 84 + 50 n for the n triangles a binary STL header announces, and no "
                     "ASCII 'solid' at the start");
}

TriangleMesh parseObj(const std::string& text, const std::string& source, const MeshLimits& limits) {
  if (text.size() > limits.max_bytes) {
    refuse(source, "the mesh has " + std::to_string(text.size()) + " bytes, more than the limit of " +
                       std::to_string(limits.max_bytes) + " (MeshLimits::max_bytes)");
  }
  MeshBuilder mesh(source, limits);
  Lines lines(text);
  std::string_view line;
  while (lines.next(line)) {
    std::size_t at = 0;
    const std::string_view key = word(line, at);
    if (key == "v") {
      const std::string where = lineText(lines.number());
      double xyz[3];
      for (double& x : xyz) {
        const std::string_view w = word(line, at);
        if (w.empty()) refuse(source, where + "'v' needs three numbers");
        if (!parseNumber(w, x)) refuse(source, where + quotedWord(w) + " is not a finite number");
      }
      mesh.addVertex(Vector3(xyz[0], xyz[1], xyz[2]), where);  // OBJ indices count every 'v', shared or not
    } else if (key == "f") {
      const std::string where = lineText(lines.number());
      const std::size_t n = mesh.vertexCount();
      const std::string_view w0 = word(line, at), w1 = word(line, at);
      std::string_view w = word(line, at);
      if (w.empty()) refuse(source, where + "a face needs at least three vertices");
      const int first = objIndex(w0, n, source, where);
      int previous = objIndex(w1, n, source, where);
      for (; !w.empty(); w = word(line, at)) {
        const int current = objIndex(w, n, source, where);
        mesh.addTriangle(first, previous, current, where);
        previous = current;
      }
    }
    // Everything else (comments, vt, vn, g, o, s, usemtl, mtllib, l, p) does not shape the surface.
  }
  return mesh.finish();
}

TriangleMesh readStl(const std::string& path, const MeshLimits& limits) { return parseStl(readFile(path, limits), path, limits); }

TriangleMesh readObj(const std::string& path, const MeshLimits& limits) { return parseObj(readFile(path, limits), path, limits); }

TriangleMesh readMesh(const std::string& path, const MeshLimits& limits) {
  std::string extension = std::filesystem::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == ".stl") return readStl(path, limits);
  if (extension == ".obj") return readObj(path, limits);
  if (extension == ".dae") return readDae(path, limits);
  refuse(path, "unknown mesh format '" + extension + "' (abdyn reads .stl, .obj" + (hasDaeReader() ? " and .dae)" : "; .dae needs a build with assimp)"));
}

}  // namespace abdyn
