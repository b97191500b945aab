#include "abdyn/io/urdf.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <regex>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <Eigen/Geometry>
#include <console_bridge/console.h>
#include <spdlog/fmt/fmt.h>
#include <urdf_parser/urdf_parser.h>

#include "abdyn/error.hpp"
#include "abdyn/logging.hpp"
#include "abdyn/model/model_builder.hpp"
#include "internal/xml_limits.hpp"

namespace abdyn {
namespace {

// ---------------------------------------------------------------------------------------------------
// urdfdom reports through console_bridge, whose default handler prints to stdout and stderr. While
// urdfdom parses, its messages go to this handler instead: errors are collected for the exception
// message, everything else is forwarded to abdyn::logger().

class UrdfdomOutput : public console_bridge::OutputHandler {
 public:
  void log(const std::string& text, console_bridge::LogLevel level, const char* /*filename*/, int /*line*/) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (level == console_bridge::CONSOLE_BRIDGE_LOG_ERROR && errors_ != nullptr) {
      errors_->push_back(text);
    } else if (level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR) {
      logger()->error("{}urdfdom: {}", source_, text);
    } else if (level == console_bridge::CONSOLE_BRIDGE_LOG_WARN) {
      logger()->warn("{}urdfdom: {}", source_, text);
    } else {
      logger()->debug("{}urdfdom: {}", source_, text);
    }
  }

  /// Collects errors into `errors` and prefixes other messages with "<source>: "; nullptr stops both.
  void capture(std::vector<std::string>* errors, const std::string& source) {
    std::lock_guard<std::mutex> lock(mutex_);
    errors_ = errors;
    source_ = errors != nullptr ? source + ": " : std::string();
  }

 private:
  std::mutex mutex_;  // console_bridge serialises its calls, but not against capture
  std::vector<std::string>* errors_ = nullptr;
  std::string source_;
};

// Never destroyed: restorePreviousOutputHandler swaps handlers, so console_bridge may keep a pointer
// to it in its "previous" slot for the rest of the program.
UrdfdomOutput& urdfdomOutput() {
  static UrdfdomOutput* const handler = new UrdfdomOutput;
  return *handler;
}

// console_bridge's handler and level are process-wide: one URDF parse at a time.
std::mutex& urdfdomMutex() {
  static std::mutex m;
  return m;
}

// Routes console_bridge to urdfdomOutput() for its lifetime. Messages other threads send through
// console_bridge meanwhile take the same route.
class UrdfdomOutputRoute {
 public:
  UrdfdomOutputRoute(std::vector<std::string>& errors, const std::string& source)
      : lock_(urdfdomMutex()), previous_level_(console_bridge::getLogLevel()) {
    urdfdomOutput().capture(&errors, source);
    // Warnings and errors must reach the handler whatever level the application chose; debug and
    // information messages only if it asked for them.
    if (previous_level_ > console_bridge::CONSOLE_BRIDGE_LOG_WARN) {
      console_bridge::setLogLevel(console_bridge::CONSOLE_BRIDGE_LOG_WARN);
    }
    console_bridge::useOutputHandler(&urdfdomOutput());
  }
  ~UrdfdomOutputRoute() {
    console_bridge::restorePreviousOutputHandler();
    console_bridge::setLogLevel(previous_level_);
    urdfdomOutput().capture(nullptr, "");
  }
  UrdfdomOutputRoute(const UrdfdomOutputRoute&) = delete;
  UrdfdomOutputRoute& operator=(const UrdfdomOutputRoute&) = delete;

 private:
  std::lock_guard<std::mutex> lock_;
  console_bridge::LogLevel previous_level_;
};

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) {
    if (!out.empty()) out += "; ";
    out += part;
  }
  return out;
}

// urdfdom only says "failed" and logs why, and it goes on after some errors, so one file may log several.
// Its messages name links and joints in its own words ("joint [j]"); this restates the first failure
// that names something as abdyn words it, keeping all of urdfdom's text after it.
std::string describeUrdfdomFailure(const std::vector<std::string>& errors) {
  const std::string all = joined(errors);
  const std::string reason = " (urdfdom: " + (all.empty() ? std::string("no reason given") : all) + ")";
  struct Rule {
    std::regex pattern;
    const char* summary;  // fmt pattern over the captured groups
  };
  static const std::vector<Rule> rules = [] {
    const auto re = [](const char* s) { return std::regex(s, std::regex::ECMAScript | std::regex::optimize); };
    return std::vector<Rule>{
        {re(R"(parent link \[([^\]]*)\] of joint \[([^\]]*)\] not found)"),
         "joint '{1}' refers to parent link '{0}', which does not exist"},
        {re(R"(child link \[([^\]]*)\] of joint \[([^\]]*)\] not found)"),
         "joint '{1}' refers to child link '{0}', which does not exist"},
        {re(R"(Joint \[([^\]]*)\] is missing a parent and/or child link)"), "joint '{0}' has no parent or no child link"},
        {re(R"(Two root links found: \[([^\]]*)\] and \[([^\]]*)\])"),
         "several root links: links '{0}' and '{1}' both have no parent joint, but a URDF must be one tree"},
        {re(R"(No root link found)"), "no root link: every link has a parent joint, so the joints form a cycle"},
        {re(R"(Could not find the 'robot' element)"), "no <robot> element"},
        {re(R"(No name given for the robot)"), "<robot> has no name attribute"},
        {re(R"(Joint \[([^\]]*)\] has no known type \[([^\]]*)\])"), "joint '{0}' has unknown type '{1}'"},
        {re(R"(link '([^']*)' is not unique)"), "link '{0}' is defined more than once"},
        {re(R"(joint '([^']*)' is not unique)"), "joint '{0}' is defined more than once"},
        {re(R"(material '([^']*)' is not unique)"), "material '{0}' is defined more than once"},
        {re(R"(No link elements found)"), "no <link> element"},
        {re(R"([Ll]ink \[([^\]]*)\])"), "link '{0}' is invalid"},
        {re(R"([Jj]oint \[([^\]]*)\])"), "joint '{0}' is invalid"},
        {re(R"([Mm]aterial \[([^\]]*)\])"), "material '{0}' is invalid"},
        {re(R"(unnamed joint)"), "a <joint> has no name attribute"},
        {re(R"(No name given for the link)"), "a <link> has no name attribute"},
        {re(R"(Material must contain a name)"), "a <material> has no name attribute"},
    };
  }();
  for (const std::string& error : errors) {
    for (const Rule& rule : rules) {
      std::smatch m;
      if (std::regex_search(error, m, rule.pattern)) {
        const std::string g0 = m.size() > 1 ? m[1].str() : std::string();
        const std::string g1 = m.size() > 2 ? m[2].str() : std::string();
        return fmt::format(fmt::runtime(rule.summary), g0, g1) + reason;
      }
    }
  }
  // TinyXML's descriptions of ill-formed documents all start with "Error" or "Failed"; urdfdom's own
  // first messages never do (those starting with "Failed to" are matched above).
  if (!errors.empty() && (errors.front().rfind("Error", 0) == 0 || errors.front().rfind("Failed", 0) == 0)) {
    return "malformed XML" + reason;
  }
  return "urdfdom could not read the URDF" + reason;
}

urdf::ModelInterfaceSharedPtr parseWithUrdfdom(const std::string& xml, const std::string& source) {
  std::vector<std::string> errors;
  urdf::ModelInterfaceSharedPtr robot;
  {
    UrdfdomOutputRoute route(errors, source);
    try {
      robot = urdf::parseURDF(xml);
    } catch (const std::exception& e) {
      errors.push_back(e.what());
      robot.reset();
    } catch (...) {
      errors.push_back("unknown exception");
      robot.reset();
    }
  }
  // A file whose joints form a cycle makes urdfdom leak its links when it rejects the file itself (it
  // links them to each other before finding that no link is the root); nothing here can reach them.
  //
  // urdfdom ignores whether it could read a link: one whose <inertial>, <visual> or <collision> it failed
  // to parse is kept, partly filled in (a mass of 0, inertia entries of 0, shapes dropped), and only an
  // error is logged. Any error it reports therefore rejects the file.
  if (!robot || !errors.empty()) throw Error(source + ": " + describeUrdfdomFailure(errors));
  return robot;
}

// ---------------------------------------------------------------------------------------------------
// From urdfdom's model to abdyn's.

Vector3 toVector(const urdf::Vector3& v) { return Vector3(v.x, v.y, v.z); }

std::string quoted(const std::string& kind, const std::string& name) { return kind + " '" + name + "'"; }

// The coordinate axis least aligned with n (the first on ties), made orthogonal to the unit vector n.
Vector3 inPlaneDirection(const Vector3& n) {
  int k = 0;
  for (int i = 1; i < 3; ++i) {
    if (std::abs(n[i]) < std::abs(n[k])) k = i;
  }
  const Vector3 e = Vector3::Unit(k);
  return (e - e.dot(n) * n).normalized();
}

class UrdfLoader {
 public:
  UrdfLoader(const urdf::ModelInterface& robot, std::string source, const UrdfOptions& options)
      : robot_(robot), source_(std::move(source)), options_(options), builder_(robot.getName(), "world"),
        body_names_{"world"} {}

  Model load() {
    if (!options_.gravity.allFinite()) fail("UrdfOptions::gravity is not finite");
    builder_.setGravity(options_.gravity);
    checkTopology();
    walkTree();
    checkBodyInertias();
    try {
      return builder_.build();
    } catch (const Error& e) {
      throw Error(source_ + ": " + e.what());
    }
  }

 private:
  // A link still to be added: the child of `joint`, whose parent link lies in `parent_body` with
  // placement X_parentlink_body (body coordinates to parent-link coordinates).
  struct Pending {
    const urdf::Joint* joint;
    int parent_body;
    Plx X_parentlink_body;
  };

  [[noreturn]] void fail(const std::string& what) const { throw Error(source_ + ": " + what); }

  // urdfdom accepts a link that is the child of several joints, which would make the tree walk visit
  // it (and a cycle through it) more than once; it also checks only that some link has no parent.
  void checkTopology() const {
    std::map<std::string, std::string> parent_joint;  // child link -> joint
    for (const auto& [name, joint] : robot_.joints_) {
      const auto [it, inserted] = parent_joint.emplace(joint->child_link_name, name);
      if (!inserted) {
        fail(fmt::format("link '{}' is the child of two joints, '{}' and '{}', but a URDF must be one tree",
                         joint->child_link_name, it->second, name));
      }
    }
    const std::string& root = robot_.getRoot()->name;
    if (root != "world" && robot_.links_.count("world")) {
      fail("link 'world' is not the root link (the root is '" + root +
           "'), but 'world' names the fixed world body");
    }
    if (options_.floating_base) {
      if (root == "world") {
        fail("UrdfOptions::floating_base is set, but the root link is 'world', the fixed world itself");
      }
      if (robot_.joints_.count("root_joint")) {
        fail("joint 'root_joint' is defined in the file, but UrdfOptions::floating_base needs that name "
             "for the joint of the root link");
      }
    }
  }

  // Depth-first preorder with an explicit stack, so that chains of any length fit on the call stack.
  void walkTree() {
    const urdf::Link& root = *robot_.getRoot();
    const RigidBodyInertia root_inertia = linkInertia(root);
    int root_body = 0;
    if (options_.floating_base) {
      JointSpec spec;
      spec.type = JointType::Floating;
      spec.name = "root_joint";
      root_body = addBody(quoted("link", root.name), 0, spec, Plx(), root_inertia, root.name);
    } else if (root.name != "world") {
      builderCall(quoted("link", root.name), [&] { return builder_.addFrame(root.name, 0, Plx(), FrameType::Fixed); });
    }
    addGeometries(root, root_body, Plx());
    reached_.insert(root.name);

    std::vector<Pending> stack;
    pushChildren(root, root_body, Plx(), stack);
    while (!stack.empty()) {
      const Pending item = stack.back();
      stack.pop_back();
      const urdf::Joint& joint = *item.joint;
      urdf::LinkConstSharedPtr child_ptr = robot_.getLink(joint.child_link_name);
      const urdf::Link& child = *child_ptr;
      const std::string where = quoted("joint", joint.name);
      const Plx X_joint_body = placement(joint.parent_to_joint_origin_transform, where + " <origin>") * item.X_parentlink_body;
      requireFinite(X_joint_body,
                    where + ": the placement of its frame in body '" + body_names_[item.parent_body] + "' overflows");
      const RigidBodyInertia inertia = linkInertia(child);

      int body = item.parent_body;
      Plx X_link_body;
      if (joint.type == urdf::Joint::FIXED) {
        if (joint.mimic) fail(where + " is fixed but has a <mimic> element");
        X_link_body = X_joint_body;
        builderCall(quoted("link", child.name),
                    [&] { return builder_.addFrame(child.name, body, X_link_body, FrameType::Fixed); });
        // The world does not move: what is welded to it needs no inertia.
        if (body != 0) builder_.addInertia(body, X_link_body.applyInverse(inertia));
      } else {
        const JointSpec spec = jointSpec(joint);
        body = addBody(where, item.parent_body, spec, X_joint_body, inertia, child.name);
        if (joint.mimic) {
          const double multiplier = joint.mimic->multiplier, offset = joint.mimic->offset;
          if (!std::isfinite(multiplier) || !std::isfinite(offset)) fail(where + ": <mimic> has a non-finite number");
          builder_.addMimic(joint.name, joint.mimic->joint_name, multiplier, offset);
        }
      }
      addGeometries(child, body, X_link_body);
      reached_.insert(child.name);
      pushChildren(child, body, X_link_body, stack);
    }

    // Every link but the root has exactly one parent joint (checkTopology), so the links the walk
    // missed hang from each other in a cycle.
    if (reached_.size() != robot_.links_.size()) {
      std::string missed;
      int count = 0;
      for (const auto& [name, link] : robot_.links_) {
        if (reached_.count(name)) continue;
        missed += (count++ ? ", '" : "'") + name + "'";
      }
      fail(fmt::format("{} {} {} not connected to the root link '{}': {} parent joints form a cycle",
                       count == 1 ? "link" : "links", missed, count == 1 ? "is" : "are", root.name,
                       count == 1 ? "its" : "their"));
    }
  }

  // Children in reverse, so that the stack pops them in urdfdom's (alphabetical) order.
  void pushChildren(const urdf::Link& link, int body, const Plx& X_link_body, std::vector<Pending>& stack) const {
    for (auto it = link.child_joints.rbegin(); it != link.child_joints.rend(); ++it) {
      stack.push_back(Pending{it->get(), body, X_link_body});
    }
  }

  int addBody(const std::string& element, int parent, const JointSpec& spec, const Plx& X_tree,
              const RigidBodyInertia& inertia, const std::string& name) {
    const int body = builderCall(element, [&] { return builder_.addBody(parent, spec, X_tree, inertia, name); });
    body_names_.push_back(name);
    return body;
  }

  JointSpec jointSpec(const urdf::Joint& joint) const {
    const std::string where = quoted("joint", joint.name);
    JointSpec spec;
    spec.name = joint.name;
    bool has_axis = true;
    bool has_position_limits = false;
    switch (joint.type) {
      case urdf::Joint::REVOLUTE:
        spec.type = JointType::Revolute;
        has_position_limits = true;
        break;
      case urdf::Joint::CONTINUOUS:
        spec.type = JointType::Revolute;
        spec.continuous = true;
        break;
      case urdf::Joint::PRISMATIC:
        spec.type = JointType::Prismatic;
        has_position_limits = true;
        break;
      case urdf::Joint::PLANAR:
        spec.type = JointType::Planar;
        break;
      case urdf::Joint::FLOATING:
        spec.type = JointType::Floating;
        has_axis = false;
        break;
      case urdf::Joint::FIXED:
      case urdf::Joint::UNKNOWN:
        fail(where + " has no moving joint type");
    }

    if (has_axis) {
      const Vector3 axis = toVector(joint.axis);
      if (!axis.allFinite()) fail(where + ": <axis> has a non-finite number");
      // stableNorm: an axis of huge components is still a direction.
      const double norm = axis.stableNorm();
      if (norm == 0.0) fail(where + " has a zero-length axis");
      if (std::abs(norm - 1.0) > 1e-9) {
        logger()->warn("{}: joint '{}': axis ({}, {}, {}) has length {}; normalised", source_, joint.name, axis.x(),
                       axis.y(), axis.z(), norm);
      }
      spec.axis = axis / norm;
      if (spec.type == JointType::Planar) spec.axis2 = inPlaneDirection(spec.axis);
    }

    if (joint.limits) {
      const urdf::JointLimits& l = *joint.limits;
      if (!std::isfinite(l.lower) || !std::isfinite(l.upper) || !std::isfinite(l.effort) || !std::isfinite(l.velocity)) {
        fail(where + ": <limit> has a non-finite number");
      }
      if (l.effort < 0.0) fail(fmt::format("{}: negative effort limit {}", where, l.effort));
      if (l.velocity < 0.0) fail(fmt::format("{}: negative velocity limit {}", where, l.velocity));
      spec.effort_limit = l.effort;
      spec.velocity_limit = l.velocity;
      if (has_position_limits) {
        if (l.lower > l.upper) fail(fmt::format("{}: lower limit {} is above upper limit {}", where, l.lower, l.upper));
        spec.lower = l.lower;
        spec.upper = l.upper;
      }
    }

    if (joint.dynamics) {
      const urdf::JointDynamics& d = *joint.dynamics;
      if (!std::isfinite(d.damping) || !std::isfinite(d.friction)) fail(where + ": <dynamics> has a non-finite number");
      if (d.damping < 0.0) fail(fmt::format("{}: negative damping {}", where, d.damping));
      if (d.friction < 0.0) fail(fmt::format("{}: negative friction {}", where, d.friction));
      spec.damping = d.damping;
      spec.friction = d.friction;
    }
    return spec;
  }

  // The link's inertia in link coordinates. <inertial> gives the mass, the pose of the inertial frame
  // in the link frame (its origin is the centre of mass) and the rotational inertia about the centre of
  // mass in inertial-frame axes: in link axes it is R I R^T.
  RigidBodyInertia linkInertia(const urdf::Link& link) const {
    if (!link.inertial) return RigidBodyInertia();
    const urdf::Inertial& in = *link.inertial;
    const std::string where = quoted("link", link.name);
    const double m = in.mass;
    Matrix3 I;
    I << in.ixx, in.ixy, in.ixz,
         in.ixy, in.iyy, in.iyz,
         in.ixz, in.iyz, in.izz;
    if (!std::isfinite(m) || !I.allFinite()) fail(where + ": <inertial> has a non-finite number");
    if (m < 0.0) fail(fmt::format("{}: negative mass {}", where, m));
    const Plx X_inertial_link = placement(in.origin, where + " <inertial> <origin>");
    // Positive definite for a link with mass, as URDF expects; a massless link may have zero inertia.
    const std::string why = describeInertiaViolation(m, Vector3::Zero(), I, m > 0.0);
    if (!why.empty()) {
      if (!options_.accept_invalid_inertia) {
        fail(where + ": invalid inertia: " + why + " (UrdfOptions::accept_invalid_inertia loads it anyway)");
      }
      logger()->warn("{}: link '{}': invalid inertia accepted (accept_invalid_inertia): {}", source_, link.name, why);
    }
    const Matrix3 R = X_inertial_link.E().transpose();
    const Matrix3 Ic = R * I * R.transpose();
    return RigidBodyInertia::unchecked(m, X_inertial_link.r(), 0.5 * (Ic + Ic.transpose()));
  }

  void addGeometries(const urdf::Link& link, int body, const Plx& X_link_body) {
    for (std::size_t k = 0; k < link.visual_array.size(); ++k) {
      const urdf::Visual& v = *link.visual_array[k];
      addGeometry(link, GeometryRole::Visual, v.name.empty() ? link.name + "/visual" + std::to_string(k) : v.name,
                  v.origin, *v.geometry, body, X_link_body);
    }
    for (std::size_t k = 0; k < link.collision_array.size(); ++k) {
      const urdf::Collision& c = *link.collision_array[k];
      addGeometry(link, GeometryRole::Collision,
                  c.name.empty() ? link.name + "/collision" + std::to_string(k) : c.name, c.origin, *c.geometry, body,
                  X_link_body);
    }
  }

  void addGeometry(const urdf::Link& link, GeometryRole role, const std::string& name, const urdf::Pose& origin,
                   const urdf::Geometry& shape, int body, const Plx& X_link_body) {
    const std::string where = quoted("link", link.name) + ": " +
                              (role == GeometryRole::Visual ? "visual '" : "collision '") + name + "'";
    Geometry g;
    g.name = name;
    g.link = link.name;
    g.role = role;
    g.body = body;
    g.X_geometry_body = placement(origin, where + " <origin>") * X_link_body;
    requireFinite(g.X_geometry_body, where + ": its placement in body '" + body_names_[body] + "' overflows");
    switch (shape.type) {
      case urdf::Geometry::SPHERE:
        g.shape = ShapeType::Sphere;
        g.size = Vector3(static_cast<const urdf::Sphere&>(shape).radius, 0.0, 0.0);
        break;
      case urdf::Geometry::BOX:
        g.shape = ShapeType::Box;
        g.size = toVector(static_cast<const urdf::Box&>(shape).dim);
        break;
      case urdf::Geometry::CYLINDER: {
        const auto& cylinder = static_cast<const urdf::Cylinder&>(shape);
        g.shape = ShapeType::Cylinder;
        g.size = Vector3(cylinder.radius, cylinder.length, 0.0);
        break;
      }
      case urdf::Geometry::MESH: {
        const auto& mesh = static_cast<const urdf::Mesh&>(shape);
        g.shape = ShapeType::Mesh;
        g.mesh_filename = mesh.filename;
        // A negative scale mirrors a mesh, which some files rely on.
        g.mesh_scale = toVector(mesh.scale);
        if (!g.mesh_scale.allFinite()) fail(where + ": mesh scale has a non-finite number");
        break;
      }
    }
    if (!g.size.allFinite()) fail(where + ": shape size has a non-finite number");
    if ((g.size.array() < 0.0).any()) fail(where + ": shape size is negative");
    builder_.addGeometry(g);
  }

  // X_frame_parent from an <origin>: the pose (xyz, rpy) of the frame in its parent's frame. urdfdom
  // has already turned rpy into a unit quaternion.
  Plx placement(const urdf::Pose& pose, const std::string& what) const {
    const Vector3 p = toVector(pose.position);
    Eigen::Quaterniond q(pose.rotation.w, pose.rotation.x, pose.rotation.y, pose.rotation.z);
    if (!p.allFinite() || !q.coeffs().allFinite() || q.norm() == 0.0) fail(what + " has a non-finite number");
    q.normalize();
    return Plx::fromPose(q.toRotationMatrix(), p);
  }

  void requireFinite(const Plx& X, const std::string& what) const {
    if (!X.E().allFinite() || !X.r().allFinite()) fail(what);
  }

  // Each link's inertia is valid, and so is their sum unless a number overflowed; with
  // accept_invalid_inertia the sum need only be finite.
  void checkBodyInertias() const {
    for (int i = 1; i < builder_.nbodies(); ++i) {
      const RigidBodyInertia& I = builder_.inertia(i);
      const std::string why = describeInertiaViolation(I.mass(), I.com(), I.inertiaAboutCom(), false);
      const bool finite = std::isfinite(I.mass()) && I.com().allFinite() && I.inertiaAboutCom().allFinite();
      if (!why.empty() && (!finite || !options_.accept_invalid_inertia)) {
        fail("body '" + body_names_[i] + "': the inertia assembled from its links is invalid: " + why);
      }
    }
  }

  // Runs a builder call, naming the URDF element in its error message.
  template <class Call>
  auto builderCall(const std::string& element, Call&& call) const -> decltype(call()) {
    try {
      return call();
    } catch (const Error& e) {
      throw Error(source_ + ": " + element + ": " + e.what());
    }
  }

  const urdf::ModelInterface& robot_;
  std::string source_;
  const UrdfOptions& options_;
  ModelBuilder builder_;
  std::vector<std::string> body_names_;  // by body index
  std::unordered_set<std::string> reached_;  // links added so far, as bodies or frames
};

// urdfdom links every link to its children with shared pointers, so links whose joints form a cycle
// keep each other alive after the model is dropped. Cutting those pointers releases them all (and lets
// a long chain be freed link by link rather than by nested destructors).
class LinkGraphRelease {
 public:
  explicit LinkGraphRelease(urdf::ModelInterface& robot) : robot_(robot) {}
  ~LinkGraphRelease() {
    for (auto& [name, link] : robot_.links_) link->child_links.clear();
  }
  LinkGraphRelease(const LinkGraphRelease&) = delete;
  LinkGraphRelease& operator=(const LinkGraphRelease&) = delete;

 private:
  urdf::ModelInterface& robot_;
};

Model loadFromXml(const std::string& xml, const std::string& source, const UrdfOptions& options) {
  internal::checkXmlLimits(xml, source);  // before any parser sees the text
  const urdf::ModelInterfaceSharedPtr robot = parseWithUrdfdom(xml, source);
  const LinkGraphRelease release(*robot);
  Model model = UrdfLoader(*robot, source, options).load();
  logger()->debug("{}: loaded model '{}': {} bodies, {} frames, nq = {}, nv = {}", source, model.name(),
                  model.nbodies(), model.nframes(), model.nq(), model.nv());
  return model;
}

}  // namespace

Model loadUrdf(const std::string& path, const UrdfOptions& options) {
  // A directory opens as a stream on Linux and reads as empty: say what it is instead.
  std::error_code ec;
  const std::filesystem::file_type type = std::filesystem::status(path, ec).type();
  if (type == std::filesystem::file_type::not_found) throw Error(path + ": cannot read the URDF file: no such file");
  if (type == std::filesystem::file_type::directory) throw Error(path + ": cannot read the URDF file: it is a directory");
  internal::checkXmlFileSize(path);
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(path + ": cannot read the URDF file: " + (errno ? std::strerror(errno) : "cannot open it"));
  }
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw Error(path + ": cannot read the URDF file: read error");
  return loadFromXml(text, path, options);
}

Model loadUrdfString(const std::string& xml, const UrdfOptions& options) {
  return loadFromXml(xml, "<string>", options);
}

}  // namespace abdyn
