#include "page.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "abdyn/abdyn.hpp"

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

// ---- meshes

// The file a URDF mesh filename names, if it exists: package://PKG/REST is looked up in the
// directories of ROS_PACKAGE_PATH and in the URDF's folder and its ancestors (a folder named PKG, or
// one holding PKG); file://PATH is PATH; other names are relative to the URDF's folder.
std::optional<fs::path> resolveMesh(const std::string& filename, const fs::path& urdf_dir) {
  std::vector<fs::path> candidates;
  const std::string package = "package://";
  const std::string file = "file://";
  if (filename.compare(0, package.size(), package) == 0) {
    const std::string rest = filename.substr(package.size());
    const std::size_t slash = rest.find('/');
    if (slash == std::string::npos || slash == 0) return std::nullopt;
    const std::string pkg = rest.substr(0, slash);
    const std::string path = rest.substr(slash + 1);
    std::vector<fs::path> roots;
    if (const char* env = std::getenv("ROS_PACKAGE_PATH")) {
      std::stringstream list(env);
      for (std::string dir; std::getline(list, dir, ':');) {
        if (!dir.empty()) roots.emplace_back(dir);
      }
    }
    for (fs::path dir = fs::absolute(urdf_dir); !dir.empty(); dir = dir.parent_path()) {
      roots.push_back(dir);
      if (dir == dir.parent_path()) break;
    }
    for (const fs::path& root : roots) {
      if (root.filename() == pkg) candidates.push_back(root / path);
      candidates.push_back(root / pkg / path);
    }
  } else if (filename.compare(0, file.size(), file) == 0) {
    candidates.emplace_back(filename.substr(file.size()));
  } else {
    candidates.push_back(fs::path(filename).is_absolute() ? fs::path(filename) : urdf_dir / filename);
  }
  for (const fs::path& p : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return p;
  }
  return std::nullopt;
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
  throw std::runtime_error(
      "the viewer's page is not built: configure abdyn with Node.js and npm present (CMake option "
      "ABDYN_BUILD_VIEWER, target abdyn_viewer), or point ABDYN_VIEWER_DIR at a folder holding index.html and viewer.js");
}

// data.js: window.ABDYN_DATA (see viewer/src/main.js for its fields).
std::string pageData(const PageInputs& inputs, std::vector<std::string>& missing) {
  abdyn::UrdfOptions options = inputs.urdf;
  options.floating_base = inputs.floating;
  const abdyn::Model model = abdyn::loadUrdf(inputs.model_path, options);
  const abdyn::ConstraintSet constraints = abdyn::loadUrdfLoops(inputs.model_path, model);
  const std::string urdf = readFile(inputs.model_path, "model");

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
       << jsonString(abdyn::jointTypeName(j.type)) << ", \"idx_q\": " << j.idx_q << ", \"nq\": " << j.nq
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
  js << "],\n\"meshes\": {";
  const fs::path urdf_dir = fs::path(inputs.model_path).parent_path();
  std::set<std::string> seen;
  bool first = true;
  for (const abdyn::Geometry& g : model.geometries()) {
    if (g.role != abdyn::GeometryRole::Visual || g.shape != abdyn::ShapeType::Mesh) continue;
    if (!seen.insert(g.mesh_filename).second) continue;
    const std::optional<fs::path> file = resolveMesh(g.mesh_filename, urdf_dir);
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
    // Checked by the page against the model, which names the offending line.
    js << "{\"name\": " << jsonString(fs::path(inputs.csv_path).filename().string())
       << ", \"text\": " << jsonString(readFile(inputs.csv_path, "trajectory")) << "}";
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
