#include "abdyn/io/urdf_export.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "abdyn/error.hpp"
#include "abdyn/logging.hpp"
#include "abdyn/spatial/euler.hpp"

namespace abdyn {
namespace {

// 17 significant digits: the reader parses every double back exactly. -0 is written as 0.
std::string number(double x) {
  if (x == 0.0) return "0";
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", x);
  return text;
}

std::string numbers(const Vector3& v) { return number(v.x()) + " " + number(v.y()) + " " + number(v.z()); }

double step(double a, int ulps) {
  for (; ulps > 0; --ulps) a = std::nextafter(a, HUGE_VAL);
  for (; ulps < 0; ++ulps) a = std::nextafter(a, -HUGE_VAL);
  return a;
}

// An rpy whose rpyToMatrix is R bit for bit, searched within two units in the last place of
// matrixToRpy(R) and of the other decomposition of the same rotation (roll + pi, pi - pitch, yaw + pi),
// each angle also a turn away (files write angles in [-2 pi, 2 pi]), nearest first; matrixToRpy(R)
// itself when there is none.
Vector3 exactRpy(const Matrix3& R) {
  constexpr double kPi = 3.14159265358979323846;
  const Vector3 rpy = matrixToRpy(R);
  const auto wrap = [&](double a) { return a > kPi ? a - 2 * kPi : a; };
  const auto turned = [&](double a) { return a > 0.0 ? a - 2 * kPi : a + 2 * kPi; };
  std::vector<Vector3> bases;
  for (const Vector3& b : {rpy, Vector3(wrap(rpy.x() + kPi), (rpy.y() >= 0 ? kPi : -kPi) - rpy.y(), wrap(rpy.z() + kPi))}) {
    for (int turns = 0; turns < 8; ++turns) {
      bases.emplace_back(turns & 1 ? turned(b.x()) : b.x(), turns & 2 ? turned(b.y()) : b.y(), turns & 4 ? turned(b.z()) : b.z());
    }
  }
  constexpr int kSteps[] = {0, 1, -1, 2, -2};
  for (const int i : kSteps) {
    for (const int j : kSteps) {
      for (const int k : kSteps) {
        for (const Vector3& base : bases) {
          const Vector3 candidate(step(base.x(), i), step(base.y(), j), step(base.z(), k));
          if (rpyToMatrix(candidate) == R) return candidate;
        }
      }
    }
  }
  return rpy;
}

// <origin> of a frame placed by X_frame_parent (parent coordinates to frame coordinates): the frame's
// pose in its parent, rotation R = E^T and position r (plx.hpp).
std::string origin(const Plx& X_frame_parent) {
  const Vector3 rpy = exactRpy(X_frame_parent.E().transpose());
  return "<origin xyz=\"" + numbers(X_frame_parent.r()) + "\" rpy=\"" + numbers(rpy) + "\"/>";
}

bool isIdentity(const Plx& X) { return X.E() == Matrix3::Identity() && X.r() == Vector3::Zero(); }

class Writer {
 public:
  explicit Writer(const Model& model) : model_(model) {}

  std::string write() {
    const Vector3 g = model_.gravity().linear();
    out_ << "<?xml version=\"1.0\"?>\n"
         << "<!-- Model '" << commentSafe(model_.name()) << "' written by abdyn::saveUrdf. Gravity in world coordinates "
         << "(URDF has no element for it; abdyn's UrdfOptions::gravity): " << numbers(g) << " m/s^2 -->\n"
         << "<robot name=\"" << xmlEscaped(model_.name()) << "\">\n";
    assignFixedJointNames();
    // Links: the world, the bodies, the frames; then the joints.
    for (const Frame& f : model_.frames()) link(f);
    for (const Frame& f : model_.frames()) joint(f);
    out_ << "</robot>\n";
    return out_.str();
  }

 private:
  static std::string commentSafe(std::string text) {
    for (std::size_t k = text.find("--"); k != std::string::npos; k = text.find("--", k)) text.replace(k, 2, "- -");
    return text;
  }

  // The link a frame is written as: its body's own for Body frames, its own name otherwise.
  void link(const Frame& f) {
    out_ << "  <link name=\"" << xmlEscaped(f.name) << "\">\n";
    if (f.type == FrameType::Body && f.body != 0) inertial(model_.inertia(f.body));
    for (const GeometryRole role : {GeometryRole::Visual, GeometryRole::Collision}) {
      for (const Geometry& g : model_.geometries()) {
        if (g.role == role && shapeLink(g) == &f) shape(g, f);
      }
    }
    out_ << "  </link>\n";
  }

  // The frame whose link declares `g`: the frame named g.link on g.body, else g.body's own frame.
  const Frame* shapeLink(const Geometry& g) const {
    for (const Frame& f : model_.frames()) {
      if (f.body == g.body && f.name == g.link) return &f;
    }
    for (const Frame& f : model_.frames()) {
      if (f.body == g.body && f.type == FrameType::Body) return &f;
    }
    return nullptr;
  }

  void inertial(const RigidBodyInertia& I) {
    if (I.mass() == 0.0 && I.inertiaAboutCom().isZero(0.0)) return;
    const Matrix3& Ic = I.inertiaAboutCom();
    out_ << "    <inertial>\n      <origin xyz=\"" << numbers(I.com()) << "\" rpy=\"0 0 0\"/>\n"
         << "      <mass value=\"" << number(I.mass()) << "\"/>\n"
         << "      <inertia ixx=\"" << number(Ic(0, 0)) << "\" ixy=\"" << number(Ic(0, 1)) << "\" ixz=\"" << number(Ic(0, 2))
         << "\" iyy=\"" << number(Ic(1, 1)) << "\" iyz=\"" << number(Ic(1, 2)) << "\" izz=\"" << number(Ic(2, 2)) << "\"/>\n"
         << "    </inertial>\n";
  }

  void shape(const Geometry& g, const Frame& link) {
    if (g.shape == ShapeType::Capsule || g.shape == ShapeType::Ellipsoid || g.shape == ShapeType::Plane) {
      logger()->warn("abdyn::saveUrdf: model '{}': shape '{}' on link '{}' is left out: URDF has no {}", model_.name(),
                     g.name, link.name, g.shape == ShapeType::Capsule ? "capsule" : g.shape == ShapeType::Ellipsoid ? "ellipsoid" : "plane");
      return;
    }
    const bool visual = g.role == GeometryRole::Visual;
    const char* tag = visual ? "visual" : "collision";
    // X_geometry_link = X_geometry_body * X_body_link; the identity needs no product.
    const Plx X = isIdentity(link.X_frame_body) ? g.X_geometry_body : g.X_geometry_body * link.X_frame_body.inverse();
    out_ << "    <" << tag << " name=\"" << xmlEscaped(g.name) << "\">\n      " << origin(X) << "\n      <geometry>";
    switch (g.shape) {
      case ShapeType::Box: out_ << "<box size=\"" << numbers(g.size) << "\"/>"; break;
      case ShapeType::Cylinder:
        out_ << "<cylinder radius=\"" << number(g.size.x()) << "\" length=\"" << number(g.size.y()) << "\"/>";
        break;
      case ShapeType::Sphere: out_ << "<sphere radius=\"" << number(g.size.x()) << "\"/>"; break;
      case ShapeType::Mesh:
        out_ << "<mesh filename=\"" << xmlEscaped(g.mesh_filename) << "\" scale=\"" << numbers(g.mesh_scale) << "\"/>";
        break;
      case ShapeType::Capsule:  // left out above
      case ShapeType::Ellipsoid:
      case ShapeType::Plane:
        break;
    }
    out_ << "</geometry>\n    </" << tag << ">\n";
  }

  // The children of each body's link in the model's frame order (the loader's order, urdf.hpp): fixed
  // frames get joint names that sort between the body joints around them, so that reading the file
  // back visits them in the same order.
  void assignFixedJointNames() {
    std::set<std::string> taken;
    for (int i = 1; i < model_.nbodies(); ++i) taken.insert(model_.joint(i).name);
    fixed_joint_.assign(model_.frames().size(), "");
    std::vector<std::vector<std::size_t>> children(model_.nbodies());  // frame indices, by parent body
    for (std::size_t k = 0; k < model_.frames().size(); ++k) {
      const Frame& f = model_.frames()[k];
      if (f.type == FrameType::Body && f.body == 0) continue;
      children[f.type == FrameType::Body ? model_.parent(f.body) : f.body].push_back(k);
    }
    for (const std::vector<std::size_t>& list : children) {
      std::string previous;
      for (std::size_t n = 0; n < list.size(); ++n) {
        const Frame& f = model_.frames()[list[n]];
        if (f.type == FrameType::Body) {
          previous = model_.joint(f.body).name;
          continue;
        }
        std::string next;  // the next body joint among the siblings
        for (std::size_t m = n + 1; m < list.size() && next.empty(); ++m) {
          if (model_.frames()[list[m]].type == FrameType::Body) next = model_.joint(model_.frames()[list[m]].body).name;
        }
        const auto fits = [&](const std::string& name) {
          return taken.count(name) == 0 && name > previous && (next.empty() || name < next);
        };
        std::string name = f.name + "_joint";
        for (int extra = 0; !fits(name) && extra < 1000; ++extra) name = previous + "+" + f.name + (extra ? std::to_string(extra) : "");
        if (!fits(name)) name = f.name + "_joint";  // the order cannot be kept: the loader sorts it elsewhere
        while (taken.count(name)) name += "_";
        taken.insert(name);
        fixed_joint_[list[n]] = name;
        previous = name;
      }
    }
  }

  const std::string& bodyLink(int body) const { return model_.frames()[frameOfBody(body)].name; }
  std::size_t frameOfBody(int body) const {
    for (std::size_t k = 0; k < model_.frames().size(); ++k) {
      const Frame& f = model_.frames()[k];
      if (f.type == FrameType::Body && f.body == body) return k;
    }
    throw Error("saveUrdf: model '" + model_.name() + "': body " + std::to_string(body) + " has no frame");
  }

  void joint(const Frame& f) {
    if (f.type != FrameType::Body) {
      const std::size_t k = static_cast<std::size_t>(&f - model_.frames().data());
      out_ << "  <joint name=\"" << xmlEscaped(fixed_joint_[k]) << "\" type=\"fixed\">\n    <parent link=\""
           << xmlEscaped(bodyLink(f.body)) << "\"/>\n    <child link=\"" << xmlEscaped(f.name) << "\"/>\n    "
           << origin(f.X_frame_body) << "\n  </joint>\n";
      return;
    }
    if (f.body == 0) return;
    const int i = f.body;
    const Joint& j = model_.joint(i);
    const char* type = nullptr;
    bool axis = true;
    switch (j.type) {
      case JointType::RevoluteX:
      case JointType::RevoluteY:
      case JointType::RevoluteZ:
      case JointType::Revolute: type = j.continuous ? "continuous" : "revolute"; break;
      case JointType::PrismaticX:
      case JointType::PrismaticY:
      case JointType::PrismaticZ:
      case JointType::Prismatic: type = "prismatic"; break;
      case JointType::Planar: type = "planar"; break;
      case JointType::Floating:
        type = "floating";
        axis = false;
        break;
      case JointType::Spherical:
      case JointType::Helical:
        throw Error("saveUrdf: model '" + model_.name() + "': joint '" + j.name + "' is " + jointTypeName(j.type) +
                    ", which URDF cannot express");
    }
    out_ << "  <joint name=\"" << xmlEscaped(j.name) << "\" type=\"" << type << "\">\n    <parent link=\""
         << xmlEscaped(bodyLink(model_.parent(i))) << "\"/>\n    <child link=\"" << xmlEscaped(f.name) << "\"/>\n    "
         << origin(model_.Xtree(i)) << "\n";
    if (axis) out_ << "    <axis xyz=\"" << numbers(j.axis) << "\"/>\n";
    limit(j);
    const double damping = model_.damping()[j.idx_v], friction = model_.friction()[j.idx_v];
    if (damping != 0.0 || friction != 0.0) {
      out_ << "    <dynamics damping=\"" << number(damping) << "\" friction=\"" << number(friction) << "\"/>\n";
    }
    for (const MimicCoupling& c : model_.mimics()) {
      if (c.follower != i) continue;
      out_ << "    <mimic joint=\"" << xmlEscaped(model_.joint(c.leader).name) << "\" multiplier=\"" << number(c.multiplier)
           << "\" offset=\"" << number(c.offset) << "\"/>\n";
    }
    out_ << "  </joint>\n";
  }

  // <limit>: URDF requires one on revolute and prismatic joints, with effort and velocity; an infinite
  // effort or velocity is written as -1, which the reader takes as "no limit" (with a warning). URDF has no
  // unbounded prismatic or non-continuous revolute joint: a <limit> without lower and upper means [0, 0],
  // so such a joint is written without <limit>, which the reader loads unbounded (with a warning).
  void limit(const Joint& j) {
    const double effort = model_.effortLimit()[j.idx_v], velocity = model_.velocityLimit()[j.idx_v];
    const bool positions = j.nq == 1 && !j.continuous;
    if (!positions && !std::isfinite(effort) && !std::isfinite(velocity)) return;
    if (positions && !(std::isfinite(model_.lowerPositionLimit()[j.idx_q]) && std::isfinite(model_.upperPositionLimit()[j.idx_q]))) {
      if (std::isfinite(effort) || std::isfinite(velocity)) {
        logger()->warn("abdyn::saveUrdf: model '{}': joint '{}' has no position limits, which URDF cannot write for a {} "
                       "joint: written without <limit>, so its effort and velocity limits are left out",
                       model_.name(), j.name, jointTypeName(j.type));
      }
      return;
    }
    out_ << "    <limit";
    if (positions) {
      out_ << " lower=\"" << number(model_.lowerPositionLimit()[j.idx_q]) << "\" upper=\""
           << number(model_.upperPositionLimit()[j.idx_q]) << "\"";
    }
    out_ << " effort=\"" << (std::isfinite(effort) ? number(effort) : "-1") << "\" velocity=\""
         << (std::isfinite(velocity) ? number(velocity) : "-1") << "\"/>\n";
  }

  const Model& model_;
  std::ostringstream out_;
  std::vector<std::string> fixed_joint_;  // by frame: the name of the fixed joint of a frame's link
};

}  // namespace

std::string xmlEscaped(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string saveUrdfString(const Model& model) { return Writer(model).write(); }

void saveUrdf(const Model& model, const std::string& path) {
  const std::string text = saveUrdfString(model);
  errno = 0;
  std::ofstream out(path, std::ios::binary);
  if (!out) throw Error(path + ": cannot write the URDF file: " + (errno ? std::strerror(errno) : "cannot open it"));
  out << text;
  out.close();
  if (!out) throw Error(path + ": cannot write the URDF file: write error");
}

}  // namespace abdyn
