#include "page.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <Eigen/Eigenvalues>

#include "abdyn/abdyn.hpp"
#include "display_urdf.hpp"
#include "model_lookup.hpp"

namespace fs = std::filesystem;

namespace abdyn_app {
namespace {

std::string readFile(const fs::path& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + what + " '" + path.string() + "'");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// ---- JSON output

std::string jsonString(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += buffer;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

// Round-trip precision: the page's poses are compared with abdyn's to 1e-6 m.
std::string jsonNumber(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", x);
  return buffer;
}

template <typename Vector>
std::string jsonArray(const Vector& v) {
  std::string out = "[";
  for (Eigen::Index k = 0; k < v.size(); ++k) out += (k ? "," : "") + jsonNumber(v[k]);
  return out + "]";
}

std::string base64(const std::string& bytes) {
  static const char* const kDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t k = 0; k < bytes.size(); k += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - k);
    unsigned word = 0;
    for (std::size_t b = 0; b < 3; ++b) {
      word = (word << 8) | (b < n ? static_cast<unsigned char>(bytes[k + b]) : 0u);
    }
    for (std::size_t d = 0; d < 4; ++d) out += d <= n ? kDigits[(word >> (18 - 6 * d)) & 63u] : '=';
  }
  return out;
}

// ---- the built viewer files

// The folder holding the built page (index.html, viewer.js, viewer.css): $ABDYN_VIEWER_DIR, the build
// tree's, the installed one, or share/abdyn/viewer next to the program's bin/.
fs::path viewerAssets() {
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("ABDYN_VIEWER_DIR")) candidates.emplace_back(env);
#ifdef ABDYN_VIEWER_BUILD_DIR
  candidates.emplace_back(ABDYN_VIEWER_BUILD_DIR);
#endif
#ifdef ABDYN_VIEWER_INSTALL_DIR
  candidates.emplace_back(ABDYN_VIEWER_INSTALL_DIR);
#endif
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back(exe.parent_path().parent_path() / "share" / "abdyn" / "viewer");
  for (const fs::path& dir : candidates) {
    if (fs::is_regular_file(dir / "index.html", ec) && fs::is_regular_file(dir / "viewer.js", ec)) return dir;
  }
  // ABDYN_VIEWER_HINT (viewer/CMakeLists.txt) says what this build lacks: the target abdyn_viewer, or
  // what kept CMake from making it.
  throw std::runtime_error(std::string("the viewer's page is not built: ") + ABDYN_VIEWER_HINT +
                           "; or point ABDYN_VIEWER_DIR at a folder holding index.html and viewer.js");
}

// ---- the trajectory CSV

// Throws unless `text` is a trajectory of `model` in the layout of `abdyn simulate --csv`: a header
// starting with t and holding every q:<joint> and v:<joint> column of the model (<joint>[k] for a joint
// with several coordinates), kinetic and potential, then at least one row of as many finite numbers.
// The page checks the same and more (viewer/src/trajectory.js); this check makes a bad file an error
// of the command rather than a note on a page.
void checkTrajectory(const std::string& text, const abdyn::Model& model, const std::string& name) {
  std::istringstream lines(text);
  std::string line;
  const auto fail = [&](int at, const std::string& what) {
    throw std::runtime_error("trajectory '" + name + "' line " + std::to_string(at) + ": " + what);
  };
  const auto fields = [](const std::string& row) {
    std::vector<std::string> out;
    std::stringstream cells(row.empty() || row.back() != '\r' ? row : row.substr(0, row.size() - 1));
    for (std::string cell; std::getline(cells, cell, ',');) out.push_back(cell);
    if (!row.empty() && row.back() == ',') out.emplace_back();
    return out;
  };
  if (!std::getline(lines, line)) fail(1, "the file is empty (expected a header line starting with t)");
  const std::vector<std::string> header = fields(line);
  if (header.empty() || header[0] != "t") fail(1, "the first column is not 't' (not a CSV of abdyn simulate --csv)");
  std::vector<std::string> required;
  for (const char* kind : {"q:", "v:"}) {
    for (int i = 1; i < model.nbodies(); ++i) {
      const abdyn::Joint& j = model.joint(i);
      const int n = kind[0] == 'q' ? j.nq : j.nv;
      for (int k = 0; k < n; ++k) required.push_back(kind + (n == 1 ? j.name : j.name + "[" + std::to_string(k) + "]"));
    }
  }
  required.insert(required.end(), {"kinetic", "potential"});
  for (const std::string& column : required) {
    if (std::find(header.begin(), header.end(), column) == header.end()) {
      fail(1, "no column '" + column + "': model '" + model.name() + "' (nq = " + std::to_string(model.nq()) +
                  ", nv = " + std::to_string(model.nv()) + ") needs t, its q: and v: columns, kinetic and potential" +
                  " (a run of simulate --floating needs --floating here too)");
    }
  }
  int at = 1;
  int rows = 0;
  while (std::getline(lines, line)) {
    ++at;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::vector<std::string> row = fields(line);
    if (row.size() != header.size()) {
      fail(at, std::to_string(row.size()) + " values, but the header has " + std::to_string(header.size()) + " columns");
    }
    for (std::size_t c = 0; c < row.size(); ++c) {
      char* end = nullptr;
      const double x = std::strtod(row[c].c_str(), &end);
      if (end == row[c].c_str() || row[c].find_first_not_of(" \t", static_cast<std::size_t>(end - row[c].c_str())) != std::string::npos ||
          !std::isfinite(x)) {
        fail(at, "column '" + header[c] + "' holds '" + row[c] + "', which is not a finite number");
      }
    }
    ++rows;
  }
  if (rows == 0) fail(1, "the header is not followed by any rows");
}

// Short numbers for mesh vertices: the page draws them, nothing is compared at this precision.
std::string jsonShort(double x) {
  char buffer[24];
  std::snprintf(buffer, sizeof buffer, "%.7g", x);
  return buffer;
}

// Unit quaternion (w, x, y, z) of a rotation matrix, in the order the page reads.
std::string jsonQuaternion(const abdyn::Matrix3& R) {
  const Eigen::Quaterniond q(R);
  return "[" + jsonNumber(q.w()) + "," + jsonNumber(q.x()) + "," + jsonNumber(q.y()) + "," + jsonNumber(q.z()) + "]";
}

const char* shapeName(abdyn::ShapeType shape) {
  switch (shape) {
    case abdyn::ShapeType::Box: return "box";
    case abdyn::ShapeType::Cylinder: return "cylinder";
    case abdyn::ShapeType::Sphere: return "sphere";
    case abdyn::ShapeType::Mesh: return "mesh";
    case abdyn::ShapeType::Capsule: return "capsule";
    case abdyn::ShapeType::Ellipsoid: return "ellipsoid";
    case abdyn::ShapeType::Plane: return "plane";
  }
  return "unknown";
}

// What the page draws for bodies without a visual shape: "bodies" (one entry per body: its parent, its
// joint's origin in the parent body, its mass, centre of mass and equivalent inertia box, and what stands
// in for it) and "collision" (the collision shapes of bodies that have no visual, the world's among them
// under the body name "world" unless `world_drawn` (an MJCF file's page draws every geom), poses in body
// coordinates, mesh triangles when loaded).
void writeStandIns(std::ostream& js, const abdyn::Model& model, bool world_drawn) {
  std::vector<bool> visual(static_cast<std::size_t>(model.nbodies()), false);
  std::vector<bool> collision(visual.size(), false);
  for (const abdyn::Geometry& g : model.geometries()) {
    if (g.role == abdyn::GeometryRole::Visual) {
      visual[static_cast<std::size_t>(g.body)] = true;
    } else if (g.shape != abdyn::ShapeType::Mesh || g.mesh) {
      collision[static_cast<std::size_t>(g.body)] = true;
    }
  }
  const auto name = [&](int body) { return body == 0 ? std::string("world") : model.bodyName(body); };
  js << "\"bodies\": [";
  for (int i = 1; i < model.nbodies(); ++i) {
    const abdyn::RigidBodyInertia& I = model.inertia(i);
    const std::size_t b = static_cast<std::size_t>(i);
    const char* drawn = visual[b] ? "visual" : collision[b] ? "collision" : "stick";
    js << (i > 1 ? ",\n" : "\n") << "{\"name\": " << jsonString(name(i)) << ", \"parent\": " << jsonString(name(model.parent(i)))
       << ", \"joint_p\": " << jsonArray(model.Xtree(i).r()) << ", \"mass\": " << jsonNumber(I.mass())
       << ", \"com\": " << jsonArray(I.com()) << ", \"drawn\": \"" << drawn << "\"";
    // The box of uniform density with the body's mass and rotational inertia about the centre of mass:
    // I_k = m (a_j^2 + a_l^2) / 12 over its edges a, so a_k^2 = 6 (trace - 2 I_k) / m along principal axis k.
    if (I.mass() > 0) {
      Eigen::SelfAdjointEigenSolver<abdyn::Matrix3> principal(I.inertiaAboutCom());
      abdyn::Matrix3 axes = principal.eigenvectors();
      if (axes.determinant() < 0) axes.col(2) = -axes.col(2);
      const abdyn::Vector3 moments = principal.eigenvalues();
      abdyn::Vector3 edges;
      for (int k = 0; k < 3; ++k) edges[k] = std::sqrt(std::max(0.0, 6.0 * (moments.sum() - 2.0 * moments[k]) / I.mass()));
      js << ", \"box\": " << jsonArray(edges) << ", \"box_q\": " << jsonQuaternion(axes);
    }
    js << "}";
  }
  js << "],\n\"world_visual\": " << (visual[0] ? "true" : "false") << ",\n\"collision\": [";
  bool first = true;
  for (const abdyn::Geometry& g : model.geometries()) {
    if (g.role != abdyn::GeometryRole::Collision || visual[static_cast<std::size_t>(g.body)]) continue;
    if (g.body == 0 && world_drawn) continue;
    if (g.shape == abdyn::ShapeType::Mesh && !g.mesh) continue;
    // X_geometry_body: E rotates body coordinates into the shape's, r is the shape's origin in the body.
    js << (first ? "\n" : ",\n") << "{\"body\": " << jsonString(name(g.body)) << ", \"shape\": \"" << shapeName(g.shape)
       << "\", \"size\": " << jsonArray(g.size) << ", \"p\": " << jsonArray(g.X_geometry_body.r())
       << ", \"q\": " << jsonQuaternion(g.X_geometry_body.E().transpose());
    first = false;
    if (g.shape == abdyn::ShapeType::Mesh) {
      const abdyn::TriangleMesh& mesh = g.mesh->triangles;
      js << ", \"vertices\": [";
      for (std::size_t k = 0; k < mesh.vertices.size(); ++k) {
        for (int c = 0; c < 3; ++c) js << (k || c ? "," : "") << jsonShort(mesh.vertices[k][c]);
      }
      js << "], \"triangles\": [";
      for (std::size_t k = 0; k < mesh.triangles.size(); ++k) {
        for (int c = 0; c < 3; ++c) js << (k || c ? "," : "") << mesh.triangles[k][static_cast<std::size_t>(c)];
      }
      js << "]";
    }
    js << "}";
  }
  js << "],\n";
}

// data.js: window.ABDYN_DATA (see viewer/src/main.js for its fields).
std::string pageData(const PageInputs& inputs, std::vector<std::string>& missing) {
  abdyn::UrdfOptions options = inputs.urdf;
  options.floating_base = inputs.floating;
  // An MJCF file is drawn from URDF text written for the page (display_urdf.hpp), every shape of it.
  const bool mjcf = isMjcfFile(inputs.model_path);
  const abdyn::Model model = loadModelFile(inputs.model_path, options);
  const abdyn::ConstraintSet constraints = loadModelConstraints(inputs.model_path, model);
  std::map<std::string, std::string> generated;
  const std::string urdf = mjcf ? displayUrdf(model, generated) : readFile(inputs.model_path, "model");

  std::ostringstream js;
  js << "window.ABDYN_DATA = {\"model\": {\"name\": " << jsonString(model.name())
     << ", \"floating\": " << (inputs.floating ? "true" : "false") << ", \"nq\": " << model.nq()
     << ", \"nv\": " << model.nv() << ", \"neutral\": " << jsonArray(abdyn::neutral(model))
     << ", \"ground\": " << (inputs.ground ? jsonNumber(*inputs.ground) : "null") << ",\n\"joints\": [";
  for (int i = 1; i < model.nbodies(); ++i) {
    const abdyn::Joint& j = model.joint(i);
    // One-DoF joints: the axis from S, which holds it for the axis-aligned fast paths too.
    const Eigen::Matrix<double, 6, Eigen::Dynamic> S = j.motionSubspace();
    abdyn::Vector3 axis = j.axis;
    if (j.nv == 1) axis = S.col(0).head<3>().norm() > 0 ? abdyn::Vector3(S.col(0).head<3>()) : abdyn::Vector3(S.col(0).tail<3>());
    js << (i > 1 ? ",\n" : "\n") << "{\"name\": " << jsonString(j.name) << ", \"type\": "
       << jsonString(abdyn::jointTypeName(j.type)) << ", \"idx_q\": " << j.idx_q << ", \"idx_v\": " << j.idx_v << ", \"nq\": " << j.nq
       << ", \"nv\": " << j.nv << ", \"axis\": " << jsonArray(axis) << ", \"axis2\": " << jsonArray(j.axis2)
       << ", \"pitch\": " << jsonNumber(j.pitch) << "}";
  }
  js << "],\n\"loops\": [";
  const auto linkOf = [&](int body) { return body == 0 ? std::string("world") : model.bodyName(body); };
  for (std::size_t k = 0; k < constraints.loops.size(); ++k) {
    const abdyn::LoopClosure& loop = constraints.loops[k];
    js << (k ? ",\n" : "\n") << "{\"name\": " << jsonString(loop.name) << ", \"link_a\": " << jsonString(linkOf(loop.body_a))
       << ", \"p_a\": " << jsonArray(loop.p_a) << ", \"link_b\": " << jsonString(linkOf(loop.body_b))
       << ", \"p_b\": " << jsonArray(loop.p_b) << "}";
  }
  js << "],\n";
  writeStandIns(js, model, mjcf);
  js << "\"meshes\": {";
  const abdyn::ResourceSearch resources = abdyn::ResourceSearch::forFile(inputs.model_path, inputs.urdf.package_dirs);
  std::set<std::string> seen;
  bool first = true;
  for (const auto& [name, bytes] : generated) {
    js << (first ? "\n" : ",\n") << jsonString(name) << ": {\"base64\": \"" << base64(bytes) << "\"}";
    first = false;
  }
  for (const abdyn::Geometry& g : model.geometries()) {
    if ((g.role != abdyn::GeometryRole::Visual && !mjcf) || g.shape != abdyn::ShapeType::Mesh) continue;
    if (g.mesh_filename.empty() || !seen.insert(g.mesh_filename).second) continue;
    const std::optional<std::string> file = abdyn::resolveResource(g.mesh_filename, resources, inputs.model_path);
    if (!file) {
      missing.push_back(g.mesh_filename);
      continue;
    }
    js << (first ? "\n" : ",\n") << jsonString(g.mesh_filename) << ": {\"base64\": \""
       << base64(readFile(*file, "mesh")) << "\"}";
    first = false;
  }
  js << "},\n\"missing_meshes\": [";
  for (std::size_t k = 0; k < missing.size(); ++k) js << (k ? ", " : "") << jsonString(missing[k]);
  js << "],\n\"urdf\": " << jsonString(urdf) << "},\n\"trajectory\": ";
  if (inputs.csv_path.empty()) {
    js << "null";
  } else {
    const std::string csv = readFile(inputs.csv_path, "trajectory");
    checkTrajectory(csv, model, inputs.csv_path);
    js << "{\"name\": " << jsonString(fs::path(inputs.csv_path).filename().string()) << ", \"text\": " << jsonString(csv)
       << "}";
  }
  js << "};\n";
  return js.str();
}

}  // namespace

std::string prepareHtml(const std::string& dir, const std::string& csv_path) {
  viewerAssets();
  fs::create_directories(dir);
  return csv_path.empty() ? (fs::path(dir) / "trajectory.csv").string() : csv_path;
}

void writePage(const PageInputs& inputs, const std::string& dir) {
  const fs::path assets = viewerAssets();
  std::vector<std::string> missing;
  const std::string data = pageData(inputs, missing);
  fs::create_directories(dir);
  for (const fs::directory_entry& entry : fs::directory_iterator(assets)) {
    if (entry.is_regular_file()) {
      fs::copy_file(entry.path(), fs::path(dir) / entry.path().filename(), fs::copy_options::overwrite_existing);
    }
  }
  std::ofstream out(fs::path(dir) / "data.js", std::ios::binary);
  out << data;
  if (!out) throw std::runtime_error("cannot write '" + (fs::path(dir) / "data.js").string() + "'");
  std::cout << "page:           " << (fs::path(dir) / "index.html").string() << "\n";
  if (!missing.empty()) {
    std::cout << "meshes not found (the page notes them): ";
    for (std::size_t k = 0; k < missing.size(); ++k) std::cout << (k ? ", " : "") << missing[k];
    std::cout << "\n";
  }
}

}  // namespace abdyn_app
