// urdfdom's model into abdyn's URDF document (io/urdf_document.hpp), then the reader's own loader: the
// rules of abdyn/io/urdf.hpp exist once. Built into the component abdyn::urdfdom only (CMakeLists.txt).
#include "abdyn/io/urdfdom.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "abdyn/error.hpp"
#include "io/urdf_document.hpp"
#include "io/urdf_loader.hpp"

namespace abdyn {
namespace {

using internal::UrdfDocument;
using internal::UrdfJoint;
using internal::UrdfJointType;
using internal::UrdfLink;
using internal::UrdfPose;
using internal::UrdfShape;

// True when urdfdom's own Rotation::setFromRPY turns `rpy` into `q`, bit for bit.
bool reproduces(const urdf::Rotation& q, const Vector3& rpy) {
  urdf::Rotation r;
  r.setFromRPY(rpy.x(), rpy.y(), rpy.z());
  return r.x == q.x && r.y == q.y && r.z == q.z && r.w == q.w;
}

// `x` rounded to `decimals` places, through its decimal text (as a file would hold it); -0 becomes 0.
double roundedDecimal(double x, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, x);
  const double y = std::strtod(text, nullptr);
  return y == 0.0 ? 0.0 : y;
}

// The rpy urdfdom made `q` from, if it can be told (urdfdom.hpp). urdfdom's getRPY gives one rpy of
// the rotation to rounding: pitch in [-pi/2, pi/2], roll and yaw in [-pi, pi]. The file may have written
// the other decomposition (roll + pi, pi - pitch, yaw + pi) or an angle beyond +-pi (3.1415927 for pi),
// so each of those is tried too, with each angle also a turn away; then the doubles within two
// units in the last place of them, for angles written with all 17 digits. The file's text is then the first rounding of one of them to 0, 1, ...,
// 17 decimal places that urdfdom turns into q again, bit for bit. Angles in files are at most a few units,
// so decimal places (not significant digits) also clear the rounding noise of components that are zero.
std::optional<Vector3> fileRpy(const urdf::Rotation& q) {
  constexpr double kPi = 3.14159265358979323846;
  Vector3 rpy;
  q.getRPY(rpy.x(), rpy.y(), rpy.z());
  if (!rpy.allFinite()) return std::nullopt;
  const auto wrap = [&](double a) { return a > kPi ? a - 2 * kPi : a; };
  const Vector3 other(wrap(rpy.x() + kPi), kPi - rpy.y(), wrap(rpy.z() + kPi));
  // Each angle, and the same angle a turn further towards the other sign (files write angles in
  // [-2 pi, 2 pi]).
  const auto turns = [&](double a) {
    std::vector<double> out{a};
    if (a != 0.0) out.push_back(a > 0.0 ? a - 2 * kPi : a + 2 * kPi);
    return out;
  };
  for (int decimals = 0; decimals <= 17; ++decimals) {
    for (const Vector3& base : {rpy, other}) {
      for (const double r : turns(base.x())) {
        for (const double p : turns(base.y())) {
          for (const double y : turns(base.z())) {
            const Vector3 candidate(roundedDecimal(r, decimals), roundedDecimal(p, decimals), roundedDecimal(y, decimals));
            if (reproduces(q, candidate)) return candidate;
          }
        }
      }
    }
  }
  // Angles written with all 17 digits: the doubles next to getRPY's, nearest first.
  const auto step = [](double a, int ulps) {
    for (; ulps > 0; --ulps) a = std::nextafter(a, HUGE_VAL);
    for (; ulps < 0; ++ulps) a = std::nextafter(a, -HUGE_VAL);
    return a;
  };
  for (const int k : {0, 1, -1, 2, -2}) {
    for (const Vector3& base : {rpy, other}) {
      for (const int i : {0, 1, -1, 2, -2}) {
        for (const int j : {0, 1, -1, 2, -2}) {
          const Vector3 candidate(step(base.x(), i), step(base.y(), j), step(base.z(), k));
          if (reproduces(q, candidate)) return candidate;
        }
      }
    }
  }
  return std::nullopt;
}

class Converter {
 public:
  explicit Converter(const urdf::ModelInterface& urdf)
      : urdf_(urdf), source_("<urdfdom model '" + urdf.getName() + "'>") {}

  const std::string& source() const { return source_; }

  UrdfDocument convert() const {
    UrdfDocument doc;
    doc.name = urdf_.getName();
    doc.links.reserve(urdf_.links_.size());
    for (const auto& [name, link] : urdf_.links_) {
      if (!link) fail("link '" + name + "' is a null pointer");
      doc.links.push_back(convertLink(*link));
    }
    if (doc.links.empty()) fail("no link");
    doc.joints.reserve(urdf_.joints_.size());
    for (const auto& [name, joint] : urdf_.joints_) {
      if (!joint) fail("joint '" + name + "' is a null pointer");
      doc.joints.push_back(convertJoint(*joint));
    }
    return doc;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw Error(source_ + ": " + what); }

  double finite(double x, const std::string& where) const {
    if (!std::isfinite(x)) fail(where + " is not finite");
    return x;
  }

  Vector3 vector(const urdf::Vector3& v, const std::string& where) const {
    return Vector3(finite(v.x, where), finite(v.y, where), finite(v.z, where));
  }

  UrdfPose pose(const urdf::Pose& p, const std::string& where) const {
    UrdfPose out;
    out.xyz = vector(p.position, where + ": <origin xyz>");
    const urdf::Rotation& q = p.rotation;
    for (const double c : {q.x, q.y, q.z, q.w}) finite(c, where + ": the orientation of <origin>");
    if (std::optional<Vector3> rpy = fileRpy(q)) {
      out.rpy = *rpy;
    } else {
      out.rotation = Quaternion(q.w, q.x, q.y, q.z);
    }
    return out;
  }

  UrdfLink convertLink(const urdf::Link& link) const {
    UrdfLink out;
    out.name = link.name;
    const std::string where = "link '" + link.name + "'";
    if (const urdf::InertialSharedPtr& in = link.inertial) {
      internal::UrdfInertial i;
      i.origin = pose(in->origin, where + ": <inertial>");
      const std::string inertia = where + ": <inertial>: <inertia>";
      i.mass = finite(in->mass, where + ": <inertial>: <mass>");
      i.ixx = finite(in->ixx, inertia);
      i.ixy = finite(in->ixy, inertia);
      i.ixz = finite(in->ixz, inertia);
      i.iyy = finite(in->iyy, inertia);
      i.iyz = finite(in->iyz, inertia);
      i.izz = finite(in->izz, inertia);
      out.inertial = i;
    }
    int index = 0;
    for (const urdf::VisualSharedPtr& v : link.visual_array) {
      if (!v) fail(where + ": visual " + std::to_string(index) + " is a null pointer");
      out.shapes.push_back(shape(link.name, GeometryRole::Visual, index++, v->name, v->origin, v->geometry.get()));
    }
    index = 0;
    for (const urdf::CollisionSharedPtr& c : link.collision_array) {
      if (!c) fail(where + ": collision " + std::to_string(index) + " is a null pointer");
      out.shapes.push_back(shape(link.name, GeometryRole::Collision, index++, c->name, c->origin, c->geometry.get()));
    }
    return out;
  }

  // A <visual> or <collision>, named as the reader names it (urdf_document.hpp).
  UrdfShape shape(const std::string& link, GeometryRole role, int index, const std::string& name,
                  const urdf::Pose& origin, const urdf::Geometry* geometry) const {
    const bool visual = role == GeometryRole::Visual;
    UrdfShape s;
    s.role = role;
    s.name = !name.empty() ? name : link + (visual ? "/visual" : "/collision") + std::to_string(index);
    const std::string where = "link '" + link + "': " + (visual ? "visual '" : "collision '") + s.name + "'";
    s.origin = pose(origin, where);
    if (geometry == nullptr) {
      s.problem = "it has no geometry";
      return s;
    }
    switch (geometry->type) {
      case urdf::Geometry::SPHERE:
        s.shape = ShapeType::Sphere;
        s.size = Vector3(finite(static_cast<const urdf::Sphere*>(geometry)->radius, where + ": <sphere radius>"), 0.0, 0.0);
        break;
      case urdf::Geometry::BOX:
        s.shape = ShapeType::Box;
        s.size = vector(static_cast<const urdf::Box*>(geometry)->dim, where + ": <box size>");
        break;
      case urdf::Geometry::CYLINDER: {
        const auto* c = static_cast<const urdf::Cylinder*>(geometry);
        s.shape = ShapeType::Cylinder;
        s.size = Vector3(finite(c->radius, where + ": <cylinder radius>"), finite(c->length, where + ": <cylinder length>"), 0.0);
        break;
      }
      case urdf::Geometry::MESH: {
        const auto* m = static_cast<const urdf::Mesh*>(geometry);
        s.shape = ShapeType::Mesh;
        s.mesh_filename = m->filename;
        s.mesh_scale = vector(m->scale, where + ": <mesh scale>");
        break;
      }
      default:
        s.problem = "unknown geometry type " + std::to_string(static_cast<int>(geometry->type));
    }
    return s;
  }

  UrdfJoint convertJoint(const urdf::Joint& joint) const {
    UrdfJoint out;
    out.name = joint.name;
    const std::string where = "joint '" + joint.name + "'";
    switch (joint.type) {
      case urdf::Joint::REVOLUTE: out.type = UrdfJointType::Revolute; break;
      case urdf::Joint::CONTINUOUS: out.type = UrdfJointType::Continuous; break;
      case urdf::Joint::PRISMATIC: out.type = UrdfJointType::Prismatic; break;
      case urdf::Joint::FIXED: out.type = UrdfJointType::Fixed; break;
      case urdf::Joint::FLOATING: out.type = UrdfJointType::Floating; break;
      case urdf::Joint::PLANAR: out.type = UrdfJointType::Planar; break;
      default: fail(where + " has an unknown type (urdf::Joint::UNKNOWN)");
    }
    out.parent = joint.parent_link_name;
    out.child = joint.child_link_name;
    out.origin = pose(joint.parent_to_joint_origin_transform, where);
    // urdfdom sets the axis of fixed and floating joints to zero; the reader keeps its default there.
    if (out.type != UrdfJointType::Fixed && out.type != UrdfJointType::Floating) out.axis = vector(joint.axis, where + ": <axis>");
    if (const urdf::JointLimitsSharedPtr& l = joint.limits) {
      const std::string limit = where + ": <limit>";
      out.limit = internal::UrdfLimit{finite(l->lower, limit), finite(l->upper, limit), finite(l->effort, limit),
                                      finite(l->velocity, limit)};
    } else if (out.type == UrdfJointType::Revolute || out.type == UrdfJointType::Prismatic) {
      fail(where + ": a revolute or prismatic joint needs limits (urdf::Joint::limits is null)");
    }
    if (const urdf::JointDynamicsSharedPtr& d = joint.dynamics) {
      out.dynamics = internal::UrdfDynamics{finite(d->damping, where + ": <dynamics damping>"),
                                            finite(d->friction, where + ": <dynamics friction>")};
    }
    if (const urdf::JointMimicSharedPtr& m = joint.mimic) {
      out.mimic = internal::UrdfMimic{m->joint_name, finite(m->multiplier, where + ": <mimic multiplier>"),
                                      finite(m->offset, where + ": <mimic offset>")};
    }
    return out;
  }

  const urdf::ModelInterface& urdf_;
  std::string source_;
};

}  // namespace

Model buildModel(const urdf::ModelInterface& urdf, const UrdfOptions& options) {
  const Converter converter(urdf);
  return internal::loadUrdfDocument(converter.convert(), converter.source(), options);
}

}  // namespace abdyn
