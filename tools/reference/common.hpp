#pragma once
// What the two reference generators share: reading the URDF's joint limits and names (tinyxml2, the
// same file the library under test parses), seeded random draws, and a compact JSON writer.

#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <tinyxml2.h>

namespace reference {

struct UrdfJoint {
  std::string name, type, parent, child;
  double lower = -M_PI, upper = M_PI;  // continuous joints (no limits) are drawn in [-pi, pi]
};

struct UrdfInfo {
  std::string robot;
  std::vector<std::string> links;           // in file order
  std::map<std::string, UrdfJoint> joints;  // by joint name
  std::map<std::string, std::string> joint_of_child;  // child link -> joint name
};

inline std::vector<double> numbers(const char* text) {
  std::vector<double> x;
  if (text == nullptr) return x;
  char* end = nullptr;
  for (const char* p = text;; p = end) {
    const double d = std::strtod(p, &end);
    if (end == p) break;
    x.push_back(d);
  }
  return x;
}

inline UrdfInfo readUrdf(const std::string& path) {
  tinyxml2::XMLDocument doc;
  if (doc.LoadFile(path.c_str()) != tinyxml2::XML_SUCCESS) throw std::runtime_error("cannot read " + path);
  const tinyxml2::XMLElement* robot = doc.FirstChildElement("robot");
  if (robot == nullptr) throw std::runtime_error(path + ": no <robot>");
  UrdfInfo info;
  info.robot = robot->Attribute("name");
  for (auto* l = robot->FirstChildElement("link"); l; l = l->NextSiblingElement("link")) info.links.push_back(l->Attribute("name"));
  for (auto* j = robot->FirstChildElement("joint"); j; j = j->NextSiblingElement("joint")) {
    UrdfJoint joint;
    joint.name = j->Attribute("name");
    joint.type = j->Attribute("type");
    joint.parent = j->FirstChildElement("parent")->Attribute("link");
    joint.child = j->FirstChildElement("child")->Attribute("link");
    const auto* limit = j->FirstChildElement("limit");
    if (joint.type != "continuous" && limit != nullptr && limit->Attribute("lower") && limit->Attribute("upper")) {
      joint.lower = limit->DoubleAttribute("lower");
      joint.upper = limit->DoubleAttribute("upper");
    }
    info.joint_of_child[joint.child] = joint.name;
    info.joints[joint.name] = joint;
  }
  return info;
}

/// The URDF with every <inertial> rotation folded into its inertia tensor (I' = R I R^T, rpy zeroed):
/// the same rigid bodies, in the form RBDL's URDF reader accepts (it refuses rotated inertial frames
/// of non-root links and silently drops that rotation on the root link). Names the changed links.
inline std::string withUnrotatedInertials(const std::string& path, std::vector<std::string>& changed) {
  tinyxml2::XMLDocument doc;
  if (doc.LoadFile(path.c_str()) != tinyxml2::XML_SUCCESS) throw std::runtime_error("cannot read " + path);
  auto* robot = doc.FirstChildElement("robot");
  for (auto* l = robot->FirstChildElement("link"); l; l = l->NextSiblingElement("link")) {
    auto* inertial = l->FirstChildElement("inertial");
    if (inertial == nullptr) continue;
    auto* origin = inertial->FirstChildElement("origin");
    auto* inertia = inertial->FirstChildElement("inertia");
    if (origin == nullptr || inertia == nullptr || origin->Attribute("rpy") == nullptr) continue;
    const std::vector<double> rpy = numbers(origin->Attribute("rpy"));
    if (rpy.size() != 3 || (rpy[0] == 0 && rpy[1] == 0 && rpy[2] == 0)) continue;
    // URDF: R = Rz(yaw) Ry(pitch) Rx(roll), the inertial frame's axes in the link frame.
    const Eigen::Matrix3d R = (Eigen::AngleAxisd(rpy[2], Eigen::Vector3d::UnitZ()) *
                               Eigen::AngleAxisd(rpy[1], Eigen::Vector3d::UnitY()) *
                               Eigen::AngleAxisd(rpy[0], Eigen::Vector3d::UnitX())).toRotationMatrix();
    Eigen::Matrix3d I;
    I << inertia->DoubleAttribute("ixx"), inertia->DoubleAttribute("ixy"), inertia->DoubleAttribute("ixz"),
         inertia->DoubleAttribute("ixy"), inertia->DoubleAttribute("iyy"), inertia->DoubleAttribute("iyz"),
         inertia->DoubleAttribute("ixz"), inertia->DoubleAttribute("iyz"), inertia->DoubleAttribute("izz");
    const Eigen::Matrix3d Il = R * I * R.transpose();
    const char* names[3][3] = {{"ixx", "ixy", "ixz"}, {"", "iyy", "iyz"}, {"", "", "izz"}};
    char buf[64];
    for (int r = 0; r < 3; ++r)
      for (int c = r; c < 3; ++c) {
        std::snprintf(buf, sizeof buf, "%.17g", Il(r, c));
        inertia->SetAttribute(names[r][c], buf);
      }
    origin->SetAttribute("rpy", "0 0 0");
    changed.push_back(l->Attribute("name"));
  }
  tinyxml2::XMLPrinter printer;
  doc.Print(&printer);
  return printer.CStr();
}

/// Seeded draws of one state's inputs.
class Draw {
 public:
  explicit Draw(unsigned seed) : rng_(seed) {}
  double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng_); }
  Eigen::VectorXd vector(Eigen::Index n, double scale) {
    Eigen::VectorXd x(n);
    for (Eigen::Index k = 0; k < n; ++k) x[k] = uniform(-scale, scale);
    return x;
  }
  /// A uniformly distributed unit quaternion as (x, y, z, w).
  Eigen::Vector4d quaternionXyzw() {
    std::normal_distribution<double> n(0.0, 1.0);
    Eigen::Vector4d x(n(rng_), n(rng_), n(rng_), n(rng_));
    return x.normalized();
  }

 private:
  std::mt19937_64 rng_;
};

// Input scales: velocities in [-2, 2], joint forces in [-10, 10], accelerations in [-3, 3], floating
// base positions in [-1, 1] m.
constexpr double kVelocity = 2.0, kForce = 10.0, kAcceleration = 3.0, kPosition = 1.0;

/// A compact JSON writer: 17 significant digits, every array on one line.
class Json {
 public:
  explicit Json(const std::string& path) : f_(std::fopen(path.c_str(), "w")) {
    if (f_ == nullptr) throw std::runtime_error("cannot write " + path);
  }
  ~Json() { std::fclose(f_); }
  Json(const Json&) = delete;
  Json& operator=(const Json&) = delete;

  void raw(const std::string& s) { std::fputs(s.c_str(), f_); }
  void str(const std::string& s) {
    std::fputc('"', f_);
    for (char c : s) {
      if (c == '"' || c == '\\') std::fputc('\\', f_);
      std::fputc(c, f_);
    }
    std::fputc('"', f_);
  }
  void num(double x) {
    if (!std::isfinite(x)) throw std::runtime_error("non-finite output");
    std::fprintf(f_, "%.17g", x);
  }
  template <class V>
  void vec(const V& x) {
    raw("[");
    for (Eigen::Index k = 0; k < x.size(); ++k) {
      if (k) raw(",");
      num(x[k]);
    }
    raw("]");
  }
  void mat(const Eigen::MatrixXd& M) {
    raw("[");
    for (Eigen::Index r = 0; r < M.rows(); ++r) {
      if (r) raw(",");
      vec(Eigen::VectorXd(M.row(r).transpose()));
    }
    raw("]");
  }
  void strings(const std::vector<std::string>& s) {
    raw("[");
    for (size_t k = 0; k < s.size(); ++k) {
      if (k) raw(",");
      str(s[k]);
    }
    raw("]");
  }
  void key(const std::string& k) {
    str(k);
    raw(": ");
  }

 private:
  std::FILE* f_;
};

/// Outputs of one state, in the generating library's layout.
struct Outputs {
  Eigen::VectorXd q, v, tau, acc, fd_qdd, id_tau;
  Eigen::MatrixXd M;
  // First-order derivatives (Pinocchio only, and only for the states asked for; empty otherwise): of
  // RNEA at (q, v, acc) and of ABA at (q, v, tau), columns in the library's tangent coordinates.
  Eigen::MatrixXd dtau_dq, dtau_dv, ddq_dq, ddq_dv, Minv;
  std::vector<std::pair<std::string, Eigen::Matrix3d>> R;  // link name, rotation of the link in the world
  std::vector<Eigen::Vector3d> p;                          // position of the link's origin in the world
};

/// The generators' command line: <file.urdf> <model name> <fixed|floating> <out.json> [states] [seed]
/// [derivative states] (how many of the first states also get derivatives; all by default).
struct Arguments {
  std::string path, name, base, out;
  int states = 5;
  unsigned seed = 7;
  int derivative_states = 5;  // parseArguments: all the states unless given
  bool floating = false;
};

/// Reads the command line; false (after printing the usage) when it is too short.
inline bool parseArguments(int argc, char** argv, const char* tool, Arguments& a) {
  if (argc < 5) {
    std::fprintf(stderr,
                 "usage: %s <file.urdf> <model name> <fixed|floating> <out.json> [states] [seed] [derivative states]\n",
                 tool);
    return false;
  }
  a.path = argv[1], a.name = argv[2], a.base = argv[3], a.out = argv[4];
  if (argc > 5) a.states = std::stoi(argv[5]);
  if (argc > 6) a.seed = static_cast<unsigned>(std::stoul(argv[6]));
  a.derivative_states = argc > 7 ? std::stoi(argv[7]) : a.states;
  a.floating = a.base == "floating";
  return true;
}

/// The joint-space inputs of a state, drawn after its q (the order fixes the files' numbers).
inline void drawInputs(Draw& draw, int nv, Outputs& o) {
  o.v = draw.vector(nv, kVelocity);
  o.tau = draw.vector(nv, kForce);
  o.acc = draw.vector(nv, kAcceleration);
}

struct Header {
  std::string peer, version, model, base, convention, note;
  int nq = 0, nv = 0;
  Eigen::Vector3d gravity;
  std::vector<std::string> dof_names, links;
  Eigen::VectorXd Mx_x;
};

inline void write(const std::string& path, const Header& h, const std::vector<Outputs>& states) {
  Json j(path);
  j.raw("{");
  const std::pair<const char*, const std::string*> names[] = {
      {"peer", &h.peer}, {"version", &h.version}, {"model", &h.model}, {"base", &h.base}};
  for (const auto& [k, name] : names) j.key(k), j.str(*name), j.raw(",\n");
  j.key("nq"), j.raw(std::to_string(h.nq)), j.raw(",\n");
  j.key("nv"), j.raw(std::to_string(h.nv)), j.raw(",\n");
  j.key("gravity"), j.vec(h.gravity), j.raw(",\n");
  j.key("dof_names"), j.strings(h.dof_names), j.raw(",\n");
  j.key("links"), j.strings(h.links), j.raw(",\n");
  j.key("convention"), j.str(h.convention), j.raw(",\n");
  j.key("note"), j.str(h.note), j.raw(",\n");
  j.key("Mx_x"), j.vec(h.Mx_x), j.raw(",\n");
  j.key("states"), j.raw("[");
  for (size_t s = 0; s < states.size(); ++s) {
    const Outputs& o = states[s];
    j.raw(s ? ",\n{" : "{");
    const std::pair<const char*, Eigen::VectorXd> vectors[] = {
        {"q", o.q},           {"v", o.v},           {"tau", o.tau},           {"acc", o.acc},
        {"fd_qdd", o.fd_qdd}, {"id_tau", o.id_tau}, {"M_diag", o.M.diagonal()}, {"Mx", o.M * h.Mx_x}};
    for (const auto& [k, x] : vectors) j.key(k), j.vec(x), j.raw(",\n");
    j.key("M"), j.mat(o.M), j.raw(",\n");
    const std::pair<const char*, const Eigen::MatrixXd*> derivatives[] = {
        {"dtau_dq", &o.dtau_dq}, {"dtau_dv", &o.dtau_dv}, {"ddq_dq", &o.ddq_dq}, {"ddq_dv", &o.ddq_dv}, {"Minv", &o.Minv}};
    for (const auto& [k, D] : derivatives)
      if (D->size() > 0) j.key(k), j.mat(*D), j.raw(",\n");
    // Each link's pose in the world: R row-major (columns are the link's axes), then p.
    j.key("link_poses"), j.raw("{");
    for (size_t k = 0; k < o.R.size(); ++k) {
      if (k) j.raw(",");
      j.key(o.R[k].first), j.raw("{"), j.key("R");
      Eigen::Matrix<double, 9, 1> r;
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) r[3 * a + b] = o.R[k].second(a, b);
      j.vec(r), j.raw(","), j.key("p"), j.vec(o.p[k]), j.raw("}");
    }
    j.raw("}}");
  }
  j.raw("]}\n");
}

}  // namespace reference
