// `abdyn view` and `abdyn simulate --html`: writes the viewer page (the files built from viewer/ plus a
// data.js holding the model, its meshes and the trajectory) and serves it on 127.0.0.1.
//
// The page fetches nothing: data.js is a script that sets window.ABDYN_DATA, and meshes travel inside
// it base64-encoded, so the folder opens from file:// as well as from the server. The server is the
// smallest thing that lets a browser on the same machine open it: GET of the folder's own files only.

#include "view.hpp"

#include "check.hpp"  // the URDF options shared by every command
#include "model_lookup.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
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
    const std::string csv = readFile(inputs.csv_path, "trajectory");
    checkTrajectory(csv, model, inputs.csv_path);
    js << "{\"name\": " << jsonString(fs::path(inputs.csv_path).filename().string()) << ", \"text\": " << jsonString(csv)
       << "}";
  }
  js << "};\n";
  return js.str();
}

// ---- the server

const char* contentType(const fs::path& file) {
  static const std::map<std::string, const char*> kTypes = {
      {".html", "text/html; charset=utf-8"}, {".js", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},   {".txt", "text/plain; charset=utf-8"},
      {".csv", "text/csv; charset=utf-8"},   {".png", "image/png"}};
  const auto it = kTypes.find(file.extension().string());
  return it == kTypes.end() ? "application/octet-stream" : it->second;
}

void sendAll(int fd, const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;  // the client went away or timed out: nothing more to do for it
    sent += static_cast<std::size_t>(n);
  }
}

std::string response(int status, const char* reason, const char* type, const std::string& body, bool head) {
  std::ostringstream s;
  s << "HTTP/1.1 " << status << ' ' << reason << "\r\nContent-Type: " << type << "\r\nContent-Length: " << body.size()
    << "\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n";
  return s.str() + (head ? std::string() : body);
}

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The answer to one request: a file of root for GET (or HEAD) of its path; 400, 403, 404 or 405 otherwise.
// Paths are percent-decoded and must not step out of root: a segment "..", a backslash or a NUL is
// refused, and so is a file whose real path (symbolic links followed) lies outside root.
std::string answer(const std::string& request, const fs::path& root) {
  const std::size_t line_end = request.find("\r\n");
  std::istringstream line(request.substr(0, line_end));
  std::string method, target, version;
  line >> method >> target >> version;
  const auto error = [&](int status, const char* reason) {
    return response(status, reason, "text/plain; charset=utf-8", std::to_string(status) + " " + reason + "\n", method == "HEAD");
  };
  if (method.empty() || target.empty() || version.compare(0, 5, "HTTP/") != 0) return error(400, "Bad Request");
  if (method != "GET" && method != "HEAD") return error(405, "Method Not Allowed");
  target = target.substr(0, target.find_first_of("?#"));
  std::string path;
  for (std::size_t k = 0; k < target.size(); ++k) {
    if (target[k] == '%') {
      const int hi = k + 2 < target.size() ? hexDigit(target[k + 1]) : -1;
      const int lo = k + 2 < target.size() ? hexDigit(target[k + 2]) : -1;
      if (hi < 0 || lo < 0) return error(400, "Bad Request");
      path += static_cast<char>(16 * hi + lo);
      k += 2;
    } else {
      path += target[k];
    }
  }
  if (path.empty() || path[0] != '/') return error(400, "Bad Request");
  if (path.find('\\') != std::string::npos || path.find('\0') != std::string::npos) return error(403, "Forbidden");
  std::vector<std::string> segments;
  std::stringstream parts(path.substr(1));
  for (std::string segment; std::getline(parts, segment, '/');) {
    if (segment == "..") return error(403, "Forbidden");
    if (!segment.empty() && segment != ".") segments.push_back(segment);
  }
  fs::path file = root;
  for (const std::string& segment : segments) file /= segment;
  std::error_code ec;
  if (fs::is_directory(file, ec)) file /= "index.html";
  const fs::path real = fs::weakly_canonical(file, ec);
  const std::string real_text = real.string();
  const std::string root_text = root.string() + "/";
  if (ec || real_text.compare(0, root_text.size(), root_text) != 0) return error(403, "Forbidden");
  if (!fs::is_regular_file(real, ec)) return error(404, "Not Found");
  std::ifstream in(real, std::ios::binary);
  if (!in) return error(404, "Not Found");
  std::ostringstream body;
  body << in.rdbuf();
  return response(200, "OK", contentType(real), body.str(), method == "HEAD");
}

// The signal (SIGINT, SIGTERM, SIGHUP) that stops the server, 0 while it runs.
volatile std::sig_atomic_t stop_signal = 0;
extern "C" void stopServing(int received) { stop_signal = received; }

// Serves dir until one of those signals arrives; returns it.
int serve(const fs::path& dir, int port) {
  const fs::path root = fs::canonical(dir);
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  if (listener < 0) throw std::runtime_error(std::string("cannot open a socket: ") + std::strerror(errno));
  const int yes = 1;
  ::setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);  // this machine only
  if (::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) < 0 || ::listen(listener, 16) < 0) {
    const std::string reason = std::strerror(errno);
    ::close(listener);
    throw std::runtime_error("cannot serve on 127.0.0.1:" + std::to_string(port) + ": " + reason +
                             " (choose another --port; 0 picks a free one)");
  }
  socklen_t length = sizeof address;
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length);
  std::cout << "serving http://127.0.0.1:" << ntohs(address.sin_port) << "/ (Ctrl-C stops)" << std::endl;

  // Several connections at once (browsers open some in advance and may send nothing on them); each is
  // answered once its request head has arrived, then closed. A connection silent for 10 s is dropped.
  struct Client {
    int fd;
    std::string request;
    int idle_ms;
  };
  std::vector<Client> clients;
  constexpr int kTick = 250;
  constexpr std::size_t kMaxRequest = 16384;
  while (stop_signal == 0) {
    std::vector<pollfd> fds{{listener, POLLIN, 0}};
    for (const Client& c : clients) fds.push_back({c.fd, POLLIN, 0});
    const int ready = ::poll(fds.data(), fds.size(), kTick);
    if (ready < 0 && errno != EINTR) throw std::runtime_error(std::string("poll failed: ") + std::strerror(errno));
    if (ready < 0) continue;  // a signal: the loop's test says whether it stops the server
    std::vector<Client> next;
    for (std::size_t k = 0; k < clients.size(); ++k) {
      Client c = clients[k];
      bool done = false;
      if (fds[k + 1].revents & (POLLIN | POLLHUP | POLLERR)) {
        char buffer[4096];
        const ssize_t n = ::recv(c.fd, buffer, sizeof buffer, 0);
        if (n <= 0) {
          done = true;
        } else {
          c.request.append(buffer, static_cast<std::size_t>(n));
          c.idle_ms = 0;
          if (c.request.find("\r\n\r\n") != std::string::npos || c.request.size() > kMaxRequest) {
            const timeval timeout{10, 0};
            ::setsockopt(c.fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
            sendAll(c.fd, c.request.size() > kMaxRequest
                              ? response(431, "Request Header Fields Too Large", "text/plain", "431\n", false)
                              : answer(c.request, root));
            done = true;
          }
        }
      } else if ((c.idle_ms += kTick) > 10000) {
        done = true;
      }
      if (done) {
        ::close(c.fd);
      } else {
        next.push_back(std::move(c));
      }
    }
    clients = std::move(next);
    if (fds[0].revents & POLLIN) {
      const int fd = ::accept(listener, nullptr, nullptr);
      if (fd >= 0) clients.push_back({fd, std::string(), 0});
    }
  }
  for (const Client& c : clients) ::close(c.fd);
  ::close(listener);
  return stop_signal;
}

int parsePort(const std::string& option, const std::string& text) {
  const double p = parseFinite(option, text);
  if (p != std::floor(p) || p < 0 || p > 65535) throw UsageError(option + " expects 0 to 65535, got '" + text + "'");
  return static_cast<int>(p);
}

std::string parseFolder(const std::string& option, const std::string& text) {
  if (text.empty()) throw UsageError(option + " needs a folder");
  return text;
}

struct ViewArguments {
  PageInputs inputs;
  std::string out;
  int port = 8765;
};

// A new folder under the temporary directory, removed with everything in it when this goes out of scope.
class TemporaryFolder {
 public:
  TemporaryFolder() {
    std::string pattern = (fs::temp_directory_path() / "abdyn-view-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot make a folder under " + fs::temp_directory_path().string());
    path_ = pattern;
  }
  ~TemporaryFolder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Writes the page (see addView) and serves it unless only --out was given. Without --out the page goes
// to a temporary folder that is removed when the server stops (Ctrl-C, SIGTERM, SIGHUP) or on an error;
// a stopping signal then ends the program as it would have without the handler.
void view(ViewArguments& args, bool port_given) {
  const bool out_given = !args.out.empty();
  if (out_given && !port_given) {  // --out alone: the page is written, nothing is served
    writePage(args.inputs, args.out);
    return;
  }
  for (const int stopping : {SIGINT, SIGTERM, SIGHUP}) std::signal(stopping, stopServing);
  int stopped_by = 0;
  {
    std::optional<TemporaryFolder> temporary;
    if (!out_given) args.out = temporary.emplace().path();
    writePage(args.inputs, args.out);
    std::cout.flush();
    stopped_by = serve(args.out, args.port);
  }
  std::signal(stopped_by, SIG_DFL);
  std::raise(stopped_by);
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

void addView(CLI::App& app) {
  CLI::App* command = app.add_subcommand(
      "view", "write a browser page of a model (and of a run's CSV) and serve it on 127.0.0.1 until Ctrl-C");
  const auto args = std::make_shared<ViewArguments>();  // lives as long as the command's callbacks
  command->add_option("MODEL.urdf", args->inputs.model_path, "a URDF file, or the name of a bundled model")->required();
  command->add_option("--csv", args->inputs.csv_path, "replay the trajectory FILE written by `abdyn simulate --csv`")
      ->type_name("FILE");
  command->add_flag("--floating", args->inputs.floating, "attach the root link to the world by a 6-DoF floating joint");
  addUrdfOptions(*command, args->inputs.urdf);
  command->add_option_function<std::string>("--ground", [args](const std::string& text) {
    args->inputs.ground = parseFinite("--ground", text);
  }, "draw the ground plane at z = Z (default 0)")->type_name("Z");
  const CLI::Option* port = addParsed(*command, "--port", "P", args->port, parsePort,
                                      "serve on port P (default 8765; 0 picks a free port)");
  addParsed(*command, "--out", "DIR", args->out, parseFolder,
            "write the page into DIR (default: a new folder under the temporary directory); with --out and no "
            "--port the page is only written");
  command->allow_extras()->callback([command, args, port] {
    refuseExtras(*command);
    args->inputs.model_path = resolveModelPath(args->inputs.model_path);
    view(*args, port->count() > 0);
  });
}

}  // namespace abdyn_app
