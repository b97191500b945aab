#include "abdyn/io/urdf.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <console_bridge/console.h>
#include <spdlog/fmt/fmt.h>
#include <tinyxml2.h>
#include <urdf_parser/urdf_parser.h>

#include "abdyn/error.hpp"
#include "abdyn/algorithms/crba.hpp"
#include "abdyn/logging.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/data.hpp"
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
    } else if (quiet_) {
      return;
    } else if (level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR) {
      logger()->error("{}urdfdom: {}", source_, text);
    } else if (level == console_bridge::CONSOLE_BRIDGE_LOG_WARN) {
      logger()->warn("{}urdfdom: {}", source_, text);
    } else {
      logger()->debug("{}urdfdom: {}", source_, text);
    }
  }

  /// Collects errors into `errors` and prefixes other messages with "<source>: " (drops them if
  /// `quiet`); nullptr stops both.
  void capture(std::vector<std::string>* errors, const std::string& source, bool quiet) {
    std::lock_guard<std::mutex> lock(mutex_);
    errors_ = errors;
    source_ = errors != nullptr ? source + ": " : std::string();
    quiet_ = quiet;
  }

 private:
  std::mutex mutex_;  // console_bridge serialises its calls, but not against capture
  std::vector<std::string>* errors_ = nullptr;
  std::string source_;
  bool quiet_ = false;
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
  UrdfdomOutputRoute(std::vector<std::string>& errors, const std::string& source, bool quiet)
      : lock_(urdfdomMutex()), previous_level_(console_bridge::getLogLevel()) {
    urdfdomOutput().capture(&errors, source, quiet);
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
    urdfdomOutput().capture(nullptr, "", false);
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

// One urdfdom parse of `xml`; its error messages are appended to `errors`, its other messages go to the
// logger unless `quiet`.
urdf::ModelInterfaceSharedPtr parseOnce(const std::string& xml, const std::string& source, std::vector<std::string>& errors,
                                        bool quiet = false) {
  urdf::ModelInterfaceSharedPtr robot;
  UrdfdomOutputRoute route(errors, source, quiet);
  try {
    robot = urdf::parseURDF(xml);
  } catch (const std::exception& e) {
    errors.push_back(e.what());
    robot.reset();
  } catch (...) {
    errors.push_back("unknown exception");
    robot.reset();
  }
  return robot;
}

// ---------------------------------------------------------------------------------------------------
// Elements urdfdom rejects although they cannot change the model. urdfdom reads <material>, <visual>
// and <collision>, and gives up on the whole file at the first one it cannot read. abdyn reads no
// material, and visuals and collisions only to draw and to touch the ground; when urdfdom's errors
// blame such an element, the loader removes it with tinyxml2 and parses again.

struct Removal {
  enum class Kind { Materials, Visuals, Collisions };
  Kind kind;
  std::string link;    // Visuals, Collisions: the link whose elements go
  std::string reason;  // urdfdom's words about it
};

// The removal that answers urdfdom's errors, if they blame a removable element. A <visual> fails on its
// <material> as often as on its shape, so materials go first.
std::optional<Removal> removalFor(const std::vector<std::string>& errors, bool materials_removed) {
  static const std::regex material(R"([Mm]aterial)", std::regex::ECMAScript | std::regex::optimize);
  static const std::regex element(R"(Could not parse (visual|collision) element for Link \[([^\]]*)\])",
                                  std::regex::ECMAScript | std::regex::optimize);
  if (!materials_removed) {
    std::vector<std::string> about;
    for (const std::string& error : errors) {
      if (std::regex_search(error, material)) about.push_back(error);
    }
    if (!about.empty()) return Removal{Removal::Kind::Materials, "", joined(about)};
  }
  // urdfdom states the fault, then which element of which link it was reading.
  for (std::size_t k = 0; k < errors.size(); ++k) {
    std::smatch m;
    if (std::regex_search(errors[k], m, element)) {
      return Removal{m[1] == "visual" ? Removal::Kind::Visuals : Removal::Kind::Collisions, m[2].str(),
                     k > 0 ? errors[k - 1] + "; " + errors[k] : errors[k]};
    }
  }
  return std::nullopt;
}

// Whether urdfdom reads `element` (a <visual> or <collision>) when it is a link's only child.
bool urdfdomReads(const tinyxml2::XMLElement& element, const std::string& source) {
  tinyxml2::XMLPrinter printer;
  element.Accept(&printer);
  std::vector<std::string> errors;
  const urdf::ModelInterfaceSharedPtr probe =
      parseOnce(std::string(R"(<robot name="probe"><link name="probe">)") + printer.CStr() + "</link></robot>", source,
                errors, true);
  return probe && errors.empty();
}

// Deletes what `removal` names from the document (where urdfdom looks: the first <robot> element and
// its <link> children); returns how many elements went. Of a link's <visual> or <collision> elements,
// only those urdfdom cannot read on their own go (all of them if none fails alone).
int applyRemoval(tinyxml2::XMLDocument& doc, const Removal& removal, const std::string& source) {
  tinyxml2::XMLElement* robot = doc.FirstChildElement("robot");
  if (robot == nullptr) return 0;
  int removed = 0;
  const auto removeChildren = [&](tinyxml2::XMLElement& parent, const char* tag, bool only_unreadable) {
    std::vector<tinyxml2::XMLElement*> doomed;
    for (tinyxml2::XMLElement* c = parent.FirstChildElement(tag); c; c = c->NextSiblingElement(tag)) {
      if (!only_unreadable || !urdfdomReads(*c, source)) doomed.push_back(c);
    }
    if (doomed.empty() && only_unreadable) {
      for (tinyxml2::XMLElement* c = parent.FirstChildElement(tag); c; c = c->NextSiblingElement(tag)) doomed.push_back(c);
    }
    for (tinyxml2::XMLElement* c : doomed) parent.DeleteChild(c);
    removed += static_cast<int>(doomed.size());
  };
  for (tinyxml2::XMLElement* link = robot->FirstChildElement("link"); link; link = link->NextSiblingElement("link")) {
    if (removal.kind == Removal::Kind::Materials) {
      for (tinyxml2::XMLElement* v = link->FirstChildElement("visual"); v; v = v->NextSiblingElement("visual")) {
        removeChildren(*v, "material", false);
      }
    } else if (const char* name = link->Attribute("name"); name != nullptr && removal.link == name) {
      removeChildren(*link, removal.kind == Removal::Kind::Visuals ? "visual" : "collision", true);
    }
  }
  if (removal.kind == Removal::Kind::Materials) removeChildren(*robot, "material", false);
  return removed;
}

std::string describeRemoval(const Removal& removal, int count) {
  switch (removal.kind) {
    case Removal::Kind::Materials:
      return fmt::format("urdfdom rejects a <material>; all {} <material> element(s) removed (abdyn reads none)", count);
    case Removal::Kind::Visuals:
      return fmt::format("link '{}': urdfdom rejects its <visual>; its {} <visual> element(s) removed", removal.link, count);
    case Removal::Kind::Collisions:
      break;
  }
  return fmt::format("link '{}': urdfdom rejects its <collision>; its {} <collision> element(s) removed "
                     "(Simulator contacts will not see them)",
                     removal.link, count);
}

// Parses with urdfdom; if it refuses the file because of elements that cannot change the model, removes
// them (one warning each, counted in `warnings`) and parses again, unless `strict`.
urdf::ModelInterfaceSharedPtr parseWithUrdfdom(const std::string& xml, const std::string& source, bool strict,
                                               int& warnings) {
  std::vector<std::string> errors;
  urdf::ModelInterfaceSharedPtr robot = parseOnce(xml, source, errors);
  tinyxml2::XMLDocument doc;
  bool parsed = false, materials_removed = false;
  // Every pass removes at least one element, so the loop ends.
  while (!robot || !errors.empty()) {
    const std::optional<Removal> removal = removalFor(errors, materials_removed);
    if (!removal) break;
    if (strict) {
      throw Error(source + ": " + describeUrdfdomFailure(errors) +
                  " (refused by UrdfOptions::strict; without it the element is removed with a warning)");
    }
    if (!parsed) {
      if (doc.Parse(xml.c_str(), xml.size()) != tinyxml2::XML_SUCCESS) break;
      parsed = true;
    }
    const int count = applyRemoval(doc, *removal, source);
    if (count == 0) break;
    logger()->warn("{}: {} (urdfdom: {})", source, describeRemoval(*removal, count), removal->reason);
    ++warnings;
    materials_removed |= removal->kind == Removal::Kind::Materials;
    tinyxml2::XMLPrinter printer;
    doc.Print(&printer);
    errors.clear();
    robot = parseOnce(std::string(printer.CStr()), source, errors);
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

// Advice in the messages of files whose mass matrix is singular.
constexpr const char* kBoundAdvice =
    "UrdfOptions::bound_mass and bound_inertia (abdyn --bound-mass M --bound-inertia I) give every moving body "
    "a minimum mass and principal inertia, and load it";

// Principal moments l1 <= l2 <= l3 and axes of a symmetric 3x3 inertia.
struct PrincipalInertia {
  Vector3 moments;
  Matrix3 axes;  // columns: the principal directions
};

PrincipalInertia principal(const Matrix3& I) {
  const Eigen::SelfAdjointEigenSolver<Matrix3> eig(0.5 * (I + I.transpose()));
  return PrincipalInertia{eig.eigenvalues(), eig.eigenvectors()};
}

std::string listNames(const std::vector<std::string>& names, std::size_t shown = 6) {
  std::string out;
  for (std::size_t k = 0; k < names.size() && k < shown; ++k) out += (k ? ", '" : "'") + names[k] + "'";
  if (names.size() > shown) out += fmt::format(" and {} more", names.size() - shown);
  return out;
}

class UrdfLoader {
 public:
  UrdfLoader(const urdf::ModelInterface& robot, std::string source, const UrdfOptions& options)
      : robot_(robot), source_(std::move(source)), options_(options), builder_(robot.getName(), "world"),
        body_names_{"world"}, body_joints_{""}, body_parents_{-1}, body_links_(1) {}

  Model load() {
    if (!options_.gravity.allFinite()) fail("UrdfOptions::gravity is not finite");
    if (!std::isfinite(options_.bound_mass) || options_.bound_mass < 0.0) {
      fail(fmt::format("UrdfOptions::bound_mass must be finite and not negative, not {}", options_.bound_mass));
    }
    if (!std::isfinite(options_.bound_inertia) || options_.bound_inertia < 0.0) {
      fail(fmt::format("UrdfOptions::bound_inertia must be finite and not negative, not {}", options_.bound_inertia));
    }
    builder_.setGravity(options_.gravity);
    checkTopology();
    largest_trace_ = largestTrace();
    walkTree();
    checkBodyInertias();
    checkMovingMass();
    Model model = [&] {
      try {
        return builder_.build();
      } catch (const Error& e) {
        throw Error(source_ + ": " + e.what());
      }
    }();
    checkMassMatrix(model);
    return model;
  }

  int warnings() const { return warnings_; }

 private:
  // A link still to be added: the child of `joint`, whose parent link lies in `parent_body` with
  // placement X_parentlink_body (body coordinates to parent-link coordinates).
  struct Pending {
    const urdf::Joint* joint;
    int parent_body;
    Plx X_parentlink_body;
  };

  [[noreturn]] void fail(const std::string& what) const { throw Error(source_ + ": " + what); }

  void warn(const std::string& what) {
    logger()->warn("{}: {}", source_, what);
    ++warnings_;
  }

  // Something doubtful that the loader can get past: a warning, or an error under UrdfOptions::strict.
  void doubt(const std::string& what) {
    if (options_.strict) fail(what + " (refused by UrdfOptions::strict)");
    warn(what);
  }

  // The inertia tolerance (urdf.hpp): rounding relative to the inertia itself, and zero at the
  // precision of the whole file.
  double tolerance(double trace) const { return 1e-9 * std::abs(trace) + 1e-15 * largest_trace_; }

  double largestTrace() const {
    double largest = 0.0;
    for (const auto& [name, link] : robot_.links_) {
      if (!link->inertial) continue;
      const double trace = link->inertial->ixx + link->inertial->iyy + link->inertial->izz;  // invariant under rotation
      if (std::isfinite(trace)) largest = std::max(largest, trace);
    }
    return largest;
  }

  // The root link 'world' set free: its only child joint, which must be fixed (urdf.hpp).
  const urdf::Joint& worldWeld() const {
    const urdf::Link& world = *robot_.getRoot();
    if (world.child_joints.size() != 1) {
      fail(fmt::format("UrdfOptions::floating_base is set, but the root link 'world' has {} child joints: only a "
                       "single link welded to 'world' can be set free",
                       world.child_joints.size()));
    }
    const urdf::Joint& joint = *world.child_joints.front();
    if (joint.type != urdf::Joint::FIXED) {
      fail(fmt::format("UrdfOptions::floating_base is set, but the root link 'world' holds link '{}' by the moving "
                       "joint '{}': load the file without floating_base",
                       joint.child_link_name, joint.name));
    }
    return joint;
  }

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
      // The weld from 'world' disappears when its child floats, so it may bear the name.
      const bool weld_is_root_joint = root == "world" && worldWeld().name == "root_joint";
      if (robot_.joints_.count("root_joint") && !weld_is_root_joint) {
        fail("joint 'root_joint' is defined in the file, but UrdfOptions::floating_base needs that name "
             "for the joint of the root link");
      }
    }
  }

  // Depth-first preorder with an explicit stack, so that chains of any length fit on the call stack.
  void walkTree() {
    const urdf::Link* root = robot_.getRoot().get();
    if (options_.floating_base && root->name == "world") {
      // 'world' is body 0 and keeps its geometry; the link welded to it becomes the floating root.
      linkInertia(*root, true);
      addGeometries(*root, 0, Plx());
      reached_.insert(root->name);
      root = robot_.getLink(worldWeld().child_link_name).get();
    }
    const RigidBodyInertia root_inertia = linkInertia(*root, !options_.floating_base);
    int root_body = 0;
    if (options_.floating_base) {
      JointSpec spec;
      spec.type = JointType::Floating;
      spec.name = "root_joint";
      root_body = addBody(quoted("link", root->name), 0, spec, Plx(), root_inertia, root->name);
    } else if (root->name != "world") {
      builderCall(quoted("link", root->name), [&] { return builder_.addFrame(root->name, 0, Plx(), FrameType::Fixed); });
    }
    addGeometries(*root, root_body, Plx());
    reached_.insert(root->name);

    std::vector<Pending> stack;
    pushChildren(*root, root_body, Plx(), stack);
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
      const bool fixed = joint.type == urdf::Joint::FIXED;
      // The world does not move: what is welded to it needs no inertia.
      const RigidBodyInertia inertia = linkInertia(child, fixed && item.parent_body == 0);

      int body = item.parent_body;
      Plx X_link_body;
      if (fixed) {
        if (joint.mimic) doubt(where + " is fixed but has a <mimic> element, which is ignored");
        X_link_body = X_joint_body;
        builderCall(quoted("link", child.name),
                    [&] { return builder_.addFrame(child.name, body, X_link_body, FrameType::Fixed); });
        if (body != 0) {
          builder_.addInertia(body, X_link_body.applyInverse(inertia));
          body_links_[body].push_back(child.name);
        }
      } else {
        const JointSpec spec = jointSpec(joint);
        body = addBody(where, item.parent_body, spec, X_joint_body, inertia, child.name);
        if (joint.mimic) addMimic(joint);
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
                       count == 1 ? "link" : "links", missed, count == 1 ? "is" : "are", root->name,
                       count == 1 ? "its" : "their"));
    }
  }

  // A coupling whose leader is missing or fixed has nothing to follow: it is dropped, so that no
  // algorithm ever sees it.
  void addMimic(const urdf::Joint& joint) {
    const std::string where = quoted("joint", joint.name);
    const urdf::JointMimic& mimic = *joint.mimic;
    if (!std::isfinite(mimic.multiplier) || !std::isfinite(mimic.offset)) fail(where + ": <mimic> has a non-finite number");
    const auto leader = robot_.joints_.find(mimic.joint_name);
    if (leader == robot_.joints_.end()) {
      doubt(fmt::format("{}: <mimic> names joint '{}', which does not exist; the coupling is dropped", where,
                        mimic.joint_name));
    } else if (leader->second->type == urdf::Joint::FIXED) {
      doubt(fmt::format("{}: <mimic> names joint '{}', which is fixed; the coupling is dropped", where, mimic.joint_name));
    } else {
      builder_.addMimic(joint.name, mimic.joint_name, mimic.multiplier, mimic.offset);
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
    body_joints_.push_back(spec.name);
    body_parents_.push_back(parent);
    body_links_.push_back({name});
    return body;
  }

  JointSpec jointSpec(const urdf::Joint& joint) {
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
        warn(fmt::format("joint '{}': axis ({}, {}, {}) has length {}; normalised", joint.name, axis.x(), axis.y(),
                         axis.z(), norm));
      }
      spec.axis = axis / norm;
      if (spec.type == JointType::Planar) spec.axis2 = inPlaneDirection(spec.axis);
    }

    if (joint.limits) {
      const urdf::JointLimits& l = *joint.limits;
      if (!std::isfinite(l.lower) || !std::isfinite(l.upper) || !std::isfinite(l.effort) || !std::isfinite(l.velocity)) {
        fail(where + ": <limit> has a non-finite number");
      }
      // Some files write -1 for "not given": nothing is limited then.
      if (l.effort < 0.0) {
        doubt(fmt::format("{}: negative effort limit {} taken as no limit", where, l.effort));
      } else {
        spec.effort_limit = l.effort;
      }
      if (l.velocity < 0.0) {
        doubt(fmt::format("{}: negative velocity limit {} taken as no limit", where, l.velocity));
      } else {
        spec.velocity_limit = l.velocity;
      }
      if (has_position_limits) {
        // Contradictory limits cannot be obeyed; like a negative effort they say nothing usable.
        if (l.lower > l.upper) {
          doubt(fmt::format("{}: lower limit {} is above upper limit {}: position limits ignored", where, l.lower, l.upper));
        } else {
          spec.lower = l.lower;
          spec.upper = l.upper;
        }
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


  // The link's inertia in link coordinates, judged by the rules of urdf.hpp. <inertial> gives the mass,
  // the pose of the inertial frame in the link frame (its origin is the centre of mass) and the
  // rotational inertia about the centre of mass in inertial-frame axes: in link axes it is R I R^T.
  // `welded_to_world`: the inertia is dropped, so only its numbers are checked.
  RigidBodyInertia linkInertia(const urdf::Link& link, bool welded_to_world) {
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
    if (welded_to_world) return RigidBodyInertia();

    const PrincipalInertia p = principal(I);
    const Vector3& l = p.moments;
    const double tol = tolerance(l.sum());
    if (m == 0.0 && l.cwiseAbs().maxCoeff() <= tol) return RigidBodyInertia();  // numerically zero
    if (l(0) < -tol) {
      indefinite_links_.insert(link.name);
      const std::string what =
          fmt::format("{}: rotational inertia is not positive semi-definite (principal moments {:.6g}, {:.6g}, {:.6g}; tolerance {:.3g})",
                      where, l(0), l(1), l(2), tol);
      if (options_.accept_invalid_inertia) {
        warn(what + "; accepted (accept_invalid_inertia)");
      } else {
        doubt(what + "; kept as written, the body it belongs to is checked");
      }
    } else if (l(2) - l(0) - l(1) > 1e-6 * l.sum() + tol) {
      const std::string what =
          fmt::format("{}: principal moments {:.6g}, {:.6g}, {:.6g} violate the triangle inequality (I1 + I2 >= I3) by {:.3g}%",
                      where, l(0), l(1), l(2), 100.0 * (l(2) - l(0) - l(1)) / l(2));
      if (options_.balance_inertia) {
        I = Matrix3::Identity() * (l.sum() / 3.0);
        warn(fmt::format("{}; rebalanced to {:.6g} each (balance_inertia)", what, l.sum() / 3.0));
      } else if (options_.accept_invalid_inertia) {
        warn(what + "; accepted (accept_invalid_inertia)");
      } else {
        doubt(what + "; kept as written (UrdfOptions::balance_inertia rebalances it)");
      }
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
    // A shape cannot change the model: a bad one is dropped with a warning (refused under strict).
    const auto drop = [&](const std::string& why) {
      doubt(where + ": " + why + "; the shape is dropped" +
            (role == GeometryRole::Collision ? " (Simulator contacts will not see it)" : ""));
    };
    const urdf::Rotation& o = origin.rotation;
    if (!toVector(origin.position).allFinite() || !Eigen::Vector4d(o.w, o.x, o.y, o.z).allFinite() ||
        (o.w == 0.0 && o.x == 0.0 && o.y == 0.0 && o.z == 0.0)) {
      return drop("<origin> has a non-finite number");
    }
    Geometry g;
    g.name = name;
    g.link = link.name;
    g.role = role;
    g.body = body;
    g.X_geometry_body = placement(origin, where + " <origin>") * X_link_body;
    if (!g.X_geometry_body.E().allFinite() || !g.X_geometry_body.r().allFinite()) {
      return drop("its placement in body '" + body_names_[body] + "' overflows");
    }
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
        if (!g.mesh_scale.allFinite()) return drop("mesh scale has a non-finite number");
        break;
      }
    }
    if (!g.size.allFinite()) return drop("shape size has a non-finite number");
    if ((g.size.array() < 0.0).any()) return drop("shape size is negative");
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

  // The composite inertia of each moving body (its links merged) must be positive semi-definite within
  // the tolerance; then the bounds of UrdfOptions apply to it.
  void checkBodyInertias() {
    for (int i = 1; i < builder_.nbodies(); ++i) {
      const RigidBodyInertia I = builder_.inertia(i);
      if (!std::isfinite(I.mass()) || !I.com().allFinite() || !I.inertiaAboutCom().allFinite()) {
        fail("body '" + body_names_[i] + "': the inertia assembled from its links is invalid: it overflows");
      }
      const PrincipalInertia p = principal(I.inertiaAboutCom());
      const Vector3& l = p.moments;
      if (l(0) < -tolerance(l.sum())) {
        std::vector<std::string> culprits;
        for (const std::string& link : body_links_[i]) {
          if (indefinite_links_.count(link)) culprits.push_back(link);
        }
        const std::string what = fmt::format(
            "body '{}' has an invalid inertia: the rotational inertia assembled from its links is not positive "
            "semi-definite (principal moments {:.6g}, {:.6g}, {:.6g}){}",
            body_names_[i], l(0), l(1), l(2),
            culprits.empty() ? std::string() : ", because of link " + listNames(culprits));
        if (!options_.accept_invalid_inertia) fail(what + " (UrdfOptions::accept_invalid_inertia loads it anyway)");
        warn(what + "; accepted (accept_invalid_inertia)");
      }
      applyBounds(i, I, p);
    }
  }

  // MuJoCo's boundmass and boundinertia: the mass raised at the centre of mass, the principal moments
  // raised about their own axes. Adding (dm, c, dI) at the body's own centre of mass c adds no
  // parallel-axis term.
  void applyBounds(int body, const RigidBodyInertia& I, const PrincipalInertia& p) {
    if (options_.bound_mass <= 0.0 && options_.bound_inertia <= 0.0) return;
    const double dm = std::max(0.0, options_.bound_mass - I.mass());
    const Vector3 dl = options_.bound_inertia > 0.0
                           ? Vector3((p.moments.array().max(options_.bound_inertia) - p.moments.array()).matrix())
                           : Vector3::Zero();
    if (dm == 0.0 && dl.isZero(0.0)) return;
    builder_.addInertia(body, RigidBodyInertia::unchecked(dm, I.com(), p.axes * dl.asDiagonal() * p.axes.transpose()));
    const RigidBodyInertia& J = builder_.inertia(body);
    logger()->info("{}: body '{}': mass {} -> {}, principal moments {}, {}, {} raised to at least {} (bound_mass, "
                   "bound_inertia)",
                   source_, body_names_[body], I.mass(), J.mass(), p.moments(0), p.moments(1), p.moments(2),
                   options_.bound_inertia);
  }

  // A joint whose bodies all lack mass and inertia moves nothing: M would have a zero row. (The builder
  // checks this too; here the message can name the links and the options.)
  void checkMovingMass() const {
    const int n = builder_.nbodies();
    std::vector<double> weight(n, 0.0);
    for (int i = n - 1; i >= 1; --i) {  // children after parents
      const RigidBodyInertia& I = builder_.inertia(i);
      weight[i] += I.mass() + I.inertiaAboutCom().cwiseAbs().sum();
      weight[body_parents_[i]] += weight[i];
    }
    for (int i = 1; i < n; ++i) {
      if (weight[i] != 0.0) continue;
      fail(fmt::format("joint '{}' moves only massless bodies (body '{}' and its subtree, links {}, have no mass or "
                       "inertia), so the mass matrix would be singular; {}",
                       body_joints_[i], body_names_[i], listNames(subtreeLinks(i)), kBoundAdvice));
    }
  }

  // The links of body i and of the bodies it carries.
  std::vector<std::string> subtreeLinks(int i) const {
    std::vector<std::string> links;
    for (int j = i; j < builder_.nbodies(); ++j) {
      int a = j;
      while (a > i) a = body_parents_[a];
      if (a != i) continue;
      links.insert(links.end(), body_links_[j].begin(), body_links_[j].end());
    }
    return links;
  }

  // M(q) must be positive definite. Its sparse L^T D L factorisation (Featherstone RBDA sec. 6.5, leaves
  // first) gives pivot D_k = what is left of M(k, k) once the coordinates beyond k have taken their
  // share: the inertia of coordinate k's motion with every descendant free. A pivot at rounding level
  // (1e-10 of M(k, k)) means that the bodies beyond joint k can follow its motion at no cost, e.g. a
  // massless body whose only child turns about one axis, or a point mass on a free joint. Some files
  // are singular only where two axes line up (a point-mass link between two joints whose axes meet at
  // the neutral configuration): M is checked at a generic configuration, where a singular pivot refuses
  // the file, and at the neutral one, where it is a warning.
  // The factorisation costs O(n depth^2), n^3 / 6 on a chain: models beyond kDenseCheckDofs coordinates
  // skip it, so loading stays fast and O(n) in memory (a 1000-link chain took seconds, and minutes under
  // the sanitizers); their joints are still checked to move some mass. An O(n) check from ABA's pivots
  // would cover them too.
  static constexpr int kDenseCheckDofs = 256;
  void checkMassMatrix(const Model& model) {
    if (model.nv() == 0 || model.nv() > kDenseCheckDofs) return;
    Data data(model);
    // A configuration in no special position: every coordinate moved by a different amount.
    Eigen::VectorXd v(model.nv());
    for (int k = 0; k < model.nv(); ++k) v[k] = 0.3 + 0.7 * std::abs(std::sin(1.0 + 2.0 * k));
    Eigen::VectorXd generic(model.nq());
    integrate(model, neutral(model), v, 1.0, generic);
    const int k = singularCoordinate(model, data, generic);
    if (k >= 0) {
      fail(fmt::format("joint '{}': the mass matrix is singular (not positive definite){}; {}",
                       model.joint(model.dofBody(k)).name,
                       singularity(model, k), kBoundAdvice));
    }
    const int k0 = singularCoordinate(model, data, neutral(model));
    if (k0 >= 0) {
      warn(fmt::format("joint '{}': the mass matrix is singular at the neutral configuration (but not in general){}; "
                       "start simulations elsewhere",
                       model.joint(model.dofBody(k0)).name, singularity(model, k0)));
    }
  }

  // The first coordinate (from the leaves) whose L^T D L pivot of M(q) vanishes, or -1.
  static int singularCoordinate(const Model& model, Data& data, const Eigen::VectorXd& q) {
    Eigen::MatrixXd M = massMatrix(model, data, q);
    const Eigen::VectorXd diagonal = M.diagonal();
    for (int k = model.nv() - 1; k >= 0; --k) {
      const double d = M(k, k);
      if (!(d > 1e-10 * diagonal[k])) return k;
      for (int i = model.dofParent(k); i >= 0; i = model.dofParent(i)) {
        const double a = M(k, i) / d;
        for (int j = i; j >= 0; j = model.dofParent(j)) M(i, j) -= a * M(k, j);
        M(k, i) = a;
      }
    }
    return -1;
  }

  // Which coordinate of the joint, and the links beyond it without mass or with a degenerate inertia.
  std::string singularity(const Model& model, int k) const {
    const int body = model.dofBody(k);
    std::vector<std::string> light;
    for (int j = body; j < model.nbodies(); ++j) {
      int a = j;
      while (a > body) a = model.parent(a);
      if (a != body) continue;
      const RigidBodyInertia& I = model.inertia(j);
      if (I.mass() == 0.0 || principal(I.inertiaAboutCom()).moments(0) <= tolerance(I.inertiaAboutCom().trace())) {
        light.insert(light.end(), body_links_[j].begin(), body_links_[j].end());
      }
    }
    return fmt::format(" (its coordinate {} has no inertia of its own: the bodies it carries follow its motion at no "
                       "cost{})",
                       k - model.joint(body).idx_v,
                       light.empty() ? std::string() : "; massless or point-like links: " + listNames(light));
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
  // By body index: name, joint name, parent and the links merged into it (its own first).
  std::vector<std::string> body_names_;
  std::vector<std::string> body_joints_;
  std::vector<int> body_parents_;
  std::vector<std::vector<std::string>> body_links_;
  std::unordered_set<std::string> reached_;  // links added so far, as bodies or frames
  std::unordered_set<std::string> indefinite_links_;
  double largest_trace_ = 0.0;
  int warnings_ = 0;
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
  int parse_warnings = 0;
  const urdf::ModelInterfaceSharedPtr robot = parseWithUrdfdom(xml, source, options.strict, parse_warnings);
  const LinkGraphRelease release(*robot);
  UrdfLoader loader(*robot, source, options);
  Model model = loader.load();
  logger()->debug("{}: loaded model '{}': {} bodies, {} frames, nq = {}, nv = {}, {} warnings", source, model.name(),
                  model.nbodies(), model.nframes(), model.nq(), model.nv(), parse_warnings + loader.warnings());
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
