#include "io/urdf_document.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <spdlog/fmt/fmt.h>
#include <tinyxml2.h>

#include "abdyn/error.hpp"
#include "io/xml_limits.hpp"
#include "io/xml_numbers.hpp"
#include "model/huge_pages.hpp"

namespace abdyn::internal {
namespace {

using tinyxml2::XMLElement;

// What is wrong with one element, without saying which link or joint holds it: the reader adds that
// (an error), or keeps it as the reason a shape is dropped.
struct Unreadable {
  std::string what;
};

std::string quoted(const std::string& kind, const std::string& name) { return kind + " '" + name + "'"; }

std::string tag(const XMLElement& e) { return "<" + std::string(e.Name()) + ">"; }

// What was assumed reading loosely written numbers (parseNumbersLoosely), for the caller to prefix with
// its link or joint and keep as doubts.
using NumberNotes = std::vector<std::string>;

// `count` numbers from the attribute; false (and `out` untouched) if it is missing.
bool numbers(const XMLElement& e, const char* attribute, double* out, int count, NumberNotes& notes) {
  const char* text = e.Attribute(attribute);
  if (text == nullptr) return false;
  std::string note;
  const std::string why = parseNumbersLoosely(text, out, count, note);
  const std::string element = "<" + std::string(e.Name()) + " " + attribute + "=\"" + text + "\">: ";
  if (!why.empty()) throw Unreadable{element + why};
  if (!note.empty()) notes.push_back(element + note);
  return true;
}

double requiredNumber(const XMLElement& e, const char* attribute, NumberNotes& notes) {
  double x = 0.0;
  if (!numbers(e, attribute, &x, 1, notes)) throw Unreadable{tag(e) + " has no " + attribute + " attribute"};
  return x;
}

void optionalNumber(const XMLElement& e, const char* attribute, double& x, NumberNotes& notes) {
  numbers(e, attribute, &x, 1, notes);
}

Vector3 vector3(const XMLElement& e, const char* attribute, const Vector3& otherwise, NumberNotes& notes) {
  Vector3 v = otherwise;
  numbers(e, attribute, v.data(), 3, notes);
  return v;
}

// The first <origin> child of `parent` (URDF allows one; later ones are ignored, as urdfdom does).
UrdfPose pose(const XMLElement& parent, NumberNotes& notes) {
  UrdfPose p;
  if (const XMLElement* o = parent.FirstChildElement("origin")) {
    p.xyz = vector3(*o, "xyz", Vector3::Zero(), notes);
    p.rpy = vector3(*o, "rpy", Vector3::Zero(), notes);
  }
  return p;
}

const XMLElement& requiredChild(const XMLElement& parent, const char* name) {
  const XMLElement* c = parent.FirstChildElement(name);
  if (c == nullptr) throw Unreadable{tag(parent) + " has no <" + name + "> element"};
  return *c;
}

// `point_mass` is set when the element has no <inertia> (the inertia is zero then); `missing` receives
// the <inertia> attributes that are absent (read as 0, as urdfdom does).
UrdfInertial inertial(const XMLElement& e, bool& point_mass, std::string& missing, NumberNotes& notes) {
  UrdfInertial in;
  in.origin = pose(e, notes);
  in.mass = requiredNumber(requiredChild(e, "mass"), "value", notes);
  const XMLElement* I = e.FirstChildElement("inertia");
  point_mass = I == nullptr;
  if (point_mass) return in;
  const std::pair<const char*, double*> entries[] = {{"ixx", &in.ixx}, {"ixy", &in.ixy}, {"ixz", &in.ixz},
                                                     {"iyy", &in.iyy}, {"iyz", &in.iyz}, {"izz", &in.izz}};
  for (const auto& [name, value] : entries) {
    if (!numbers(*I, name, value, 1, notes)) missing += (missing.empty() ? "" : ", ") + std::string(name);
  }
  return in;
}

// The shape of a <visual> or <collision>: the first element inside its <geometry>.
void geometry(const XMLElement& e, UrdfShape& s, NumberNotes& notes) {
  s.origin = pose(e, notes);
  const XMLElement& g = requiredChild(e, "geometry");
  const XMLElement* shape = g.FirstChildElement();
  if (shape == nullptr) throw Unreadable{"<geometry> has no shape element"};
  const std::string kind = shape->Name();
  if (kind == "box") {
    s.shape = ShapeType::Box;
    if (!numbers(*shape, "size", s.size.data(), 3, notes)) throw Unreadable{"<box> has no size attribute"};
  } else if (kind == "cylinder") {
    s.shape = ShapeType::Cylinder;
    s.size = Vector3(requiredNumber(*shape, "radius", notes), requiredNumber(*shape, "length", notes), 0.0);
  } else if (kind == "sphere") {
    s.shape = ShapeType::Sphere;
    s.size = Vector3(requiredNumber(*shape, "radius", notes), 0.0, 0.0);
  } else if (kind == "mesh") {
    s.shape = ShapeType::Mesh;
    const char* filename = shape->Attribute("filename");
    if (filename == nullptr) throw Unreadable{"<mesh> has no filename attribute"};
    s.mesh_filename = filename;
    s.mesh_scale = vector3(*shape, "scale", Vector3::Ones(), notes);
  } else {
    throw Unreadable{"unknown shape <" + kind + "> (abdyn reads box, cylinder, sphere and mesh)"};
  }
}

class Reader {
 public:
  explicit Reader(const std::string& source) : source_(source) {}

  UrdfDocument read(const std::string& xml, const XmlOutline& outline) {
    if (outline.clean) {
      if (std::optional<UrdfDocument> d = readByElement(xml, outline)) return std::move(*d);
    }
    return readWhole(xml);
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw Error(source_ + ": " + what); }

  // The whole document as one DOM: for documents the outline could not cut into pieces, and to
  // report what makes a document malformed.
  UrdfDocument readWhole(const std::string& xml) {
    tinyxml2::XMLDocument doc;
    if (doc.Parse(xml.c_str(), xml.size()) != tinyxml2::XML_SUCCESS) {
      fail(std::string("malformed XML: ") + (doc.ErrorStr() != nullptr ? doc.ErrorStr() : "parse error"));
    }
    const XMLElement* robot = doc.FirstChildElement("robot");
    if (robot == nullptr) fail("no <robot> element");
    UrdfDocument d = robotElement(*robot);
    for (const XMLElement* e = robot->FirstChildElement(); e; e = e->NextSiblingElement()) element(*e, d);
    finish(d);
    return d;
  }

  // The children of the first <robot> a batch at a time (consecutive children, about kBatchBytes of text
  // together), with one reused tinyxml2 document (its pools keep the nodes of the largest batch): memory
  // and time stay those of the description, and one parse per batch rather than per child saves
  // tinyxml2's set-up of each parse. Every other top-level element is parsed too, so that a document is
  // accepted exactly when its whole parse succeeds. std::nullopt if a piece does not parse: readWhole
  // then reports the document's fault.
  static constexpr std::size_t kBatchBytes = 64 << 10;
  std::optional<UrdfDocument> readByElement(const std::string& xml, const XmlOutline& outline) {
    tinyxml2::XMLDocument doc;
    const auto parse = [&](std::size_t begin, std::size_t end) -> const XMLElement* {
      if (doc.Parse(xml.data() + begin, end - begin) != tinyxml2::XML_SUCCESS) return nullptr;
      return doc.RootElement();
    };
    const XmlOutline::TopElement* robot = nullptr;
    for (const XmlOutline::TopElement& top : outline.top) {
      if (top.name == "robot" && robot == nullptr) {
        robot = &top;
      } else if (parse(top.span.begin, top.span.end) == nullptr) {
        return std::nullopt;
      }
    }
    if (robot == nullptr) return std::nullopt;
    // The <robot> start tag alone, closed, for its attributes.
    std::string head = xml.substr(robot->span.begin, robot->start_tag_end - robot->span.begin);
    if (!robot->self_closing) head += "</robot>";
    if (doc.Parse(head.c_str(), head.size()) != tinyxml2::XML_SUCCESS) return std::nullopt;
    UrdfDocument d = robotElement(*doc.RootElement());
    const std::vector<XmlOutline::Span>& children = robot->children;
    d.links.reserve(children.size() / 2 + 1);
    d.joints.reserve(children.size() / 2 + 1);
    adviseHugePages(d.links);
    adviseHugePages(d.joints);
    // The batch that starts at child k ends before the child this returns. What lies between two
    // children (white space, comments; the outline admits no text there) holds no element.
    const auto batchEnd = [&](std::size_t k) {
      std::size_t next = k + 1;
      while (next < children.size() && children[next].end - children[k].begin <= kBatchBytes) ++next;
      return next;
    };
    std::size_t k = 0;
    try {
      while (k < children.size()) {
        const std::size_t next = batchEnd(k);
        const XMLElement* e = parse(children[k].begin, children[next - 1].end);
        if (e == nullptr) return std::nullopt;
        k = next;
        for (; e != nullptr; e = e->NextSiblingElement()) element(*e, d);
      }
    } catch (const Error&) {
      // A malformed piece further on comes first, as in the whole document's parse.
      while (k < children.size()) {
        const std::size_t next = batchEnd(k);
        if (parse(children[k].begin, children[next - 1].end) == nullptr) return std::nullopt;
        k = next;
      }
      throw;
    }
    finish(d);
    return d;
  }

  // A <robot> without a name (URDF requires one; it plays no part in the model) is named after the file.
  UrdfDocument robotElement(const XMLElement& robot) const {
    UrdfDocument d;
    if (const char* name = robot.Attribute("name")) {
      d.name = name;
    } else {
      const std::string stem = std::filesystem::path(source_).stem().string();
      d.name = stem.empty() || stem.front() == '<' ? "robot" : stem;
      d.doubts.push_back("<robot> has no name attribute, which URDF requires: the model is named '" + d.name + "'");
    }
    return d;
  }

  // One child of <robot>: a link, a joint, a material; anything else is not read.
  void element(const XMLElement& e, UrdfDocument& d) {
    const char* kind = e.Name();
    if (std::strcmp(kind, "link") == 0) {
      UrdfLink l = link(e, d);
      const auto [at, first] = link_at_.try_emplace(l.name, d.links.size());
      if (!first && sameLink(d.links[at->second], l)) {
        d.doubts.push_back(quoted("link", l.name) + " is defined twice, the same both times: the repeat is ignored");
        return;
      }
      d.links.push_back(std::move(l));  // a different repeat: the tree refuses the file, naming the link
    } else if (std::strcmp(kind, "joint") == 0) {
      d.joints.push_back(joint(e, d));
    } else if (std::strncmp(kind, "xacro:", 6) == 0) {
      xacro_.insert(kind);
    } else if (std::strcmp(kind, "material") == 0) {
      if (const char* material = e.Attribute("name")) {
        materials_.insert(material);
      } else {
        d.doubts.push_back("a top-level <material> has no name attribute; ignored (abdyn reads no material)");
      }
    } else {
      const char* colon = std::strchr(kind, ':');
      if (colon != nullptr && std::strcmp(colon, ":include") == 0 && e.Attribute("href") != nullptr) {
        includes_.push_back(e.Attribute("href"));  // XInclude (the namespace prefix is the file's choice)
      }
      others_.insert(kind);
    }
  }

  static bool samePose(const UrdfPose& a, const UrdfPose& b) {
    return a.xyz == b.xyz && a.rpy == b.rpy && a.rotation.has_value() == b.rotation.has_value() &&
           (!a.rotation || a.rotation->coeffsWxyz() == b.rotation->coeffsWxyz());
  }

  // Whether two readings of a link say the same (a link repeated verbatim).
  static bool sameLink(const UrdfLink& a, const UrdfLink& b) {
    if (a.inertial.has_value() != b.inertial.has_value() || a.shapes.size() != b.shapes.size()) return false;
    if (a.inertial) {
      const UrdfInertial& p = *a.inertial;
      const UrdfInertial& q = *b.inertial;
      if (!samePose(p.origin, q.origin) || p.mass != q.mass || p.ixx != q.ixx || p.ixy != q.ixy || p.ixz != q.ixz ||
          p.iyy != q.iyy || p.iyz != q.iyz || p.izz != q.izz) {
        return false;
      }
    }
    for (std::size_t k = 0; k < a.shapes.size(); ++k) {
      const UrdfShape& p = a.shapes[k];
      const UrdfShape& q = b.shapes[k];
      if (p.role != q.role || p.name != q.name || !samePose(p.origin, q.origin) || p.shape != q.shape || p.size != q.size ||
          p.mesh_filename != q.mesh_filename || p.mesh_scale != q.mesh_scale || p.problem != q.problem) {
        return false;
      }
    }
    return true;
  }

  // What needs the whole document: materials named before or after their use.
  void finish(UrdfDocument& d) const {
    if (!xacro_.empty()) {
      std::string names;
      for (const std::string& name : xacro_) names += (names.empty() ? "<" : ", <") + name + ">";
      d.doubts.push_back("the file holds unexpanded xacro elements (" + names + "), which are ignored: it is a xacro "
                         "source, not a URDF; expand it first: " + std::string(kXacroAdvice));
    }
    // Parts of the description in other files: the model would miss them.
    if (!includes_.empty()) {
      fail("the file assembles its description from other files by XInclude (<" + includeElement() + " href=\"" +
           includes_.front() + "\">" + (includes_.size() > 1 ? ", " + std::to_string(includes_.size()) + " in all" : "") +
           "), which abdyn does not expand; expand it first: xmllint --xinclude FILE.urdf > EXPANDED.urdf");
    }
    if (d.links.empty()) fail(noLinkReason(d));
    // Drake's files (and Gazebo's) attach their root to the world by a joint whose parent is "world",
    // without defining that link: read as if the file had <link name="world"/>.
    if (link_at_.count("world") == 0) {
      const auto to_world = std::find_if(d.joints.begin(), d.joints.end(), [](const UrdfJoint& j) { return j.parent == "world"; });
      if (to_world != d.joints.end()) {
        d.doubts.push_back(quoted("joint", to_world->name) + " names parent link 'world', which the file does not "
                           "define: read as the world (Drake's and Gazebo's convention), as if the file had "
                           "<link name=\"world\"/>");
        d.links.push_back(UrdfLink{"world", std::nullopt, {}});
      }
    }
    for (const char* soft : {"deformable", "reduced_deformable"}) {
      if (others_.count(soft) > 0) {
        d.doubts.push_back(std::string("the file's <") + soft + "> body (PyBullet's soft-body extension of URDF) is "
                           "ignored: abdyn models rigid bodies only");
      }
    }
    for (const auto& [where, material] : material_uses_) {
      if (materials_.count(material) == 0) {
        d.warnings.push_back(where + ": material '" + material + "' is defined nowhere in the file (abdyn reads no material)");
      }
    }
  }

  std::string includeElement() const {
    for (const std::string& kind : others_) {
      if (kind.size() > 8 && kind.compare(kind.size() - 8, 8, ":include") == 0) return kind;
    }
    return "xi:include";
  }

  // Why a <robot> has no link, for its refusal: what the file describes instead.
  std::string noLinkReason(const UrdfDocument& d) const {
    if (others_.count("deformable") > 0 || others_.count("reduced_deformable") > 0) {
      return std::string("no <link> element: the file describes a deformable body (<") +
             (others_.count("deformable") > 0 ? "deformable" : "reduced_deformable") +
             ">, PyBullet's soft-body extension of URDF), not rigid links; abdyn models rigid bodies only";
    }
    std::set<std::string> kinds = others_;
    kinds.insert(xacro_.begin(), xacro_.end());
    if (!d.joints.empty()) kinds.insert("joint");
    if (!materials_.empty()) kinds.insert("material");
    if (kinds.empty()) return "no <link> element: the <robot> element is empty";
    std::string names;
    for (const std::string& kind : kinds) names += (names.empty() ? "<" : ", <") + kind + ">";
    return "no <link> element: the <robot> holds only " + names;
  }

  UrdfLink link(const XMLElement& e, UrdfDocument& d) {
    UrdfLink l;
    const char* name = e.Attribute("name");
    if (name == nullptr) fail("a <link> has no name attribute");
    l.name = name;
    const std::string where = quoted("link", l.name);
    NumberNotes notes;
    if (const XMLElement* in = e.FirstChildElement("inertial")) {
      bool point_mass = false;
      std::string missing;
      try {
        l.inertial = inertial(*in, point_mass, missing, notes);
      } catch (const Unreadable& u) {
        fail(where + ": <inertial>: " + u.what);
      }
      if (!missing.empty()) {
        d.doubts.push_back(where + ": <inertia> has no " + missing + " attribute (URDF requires all six): read as 0");
      }
      if (point_mass) {
        d.doubts.push_back(where + ": <inertial> has a <mass> but no <inertia>: read as a point mass (zero rotational "
                                   "inertia about its centre of mass)");
      }
      // URDF allows one <inertial>; the first is used (as urdfdom does).
      int count = 0;
      std::string masses;
      for (const XMLElement* other = in; other; other = other->NextSiblingElement("inertial"), ++count) {
        const XMLElement* mass = other->FirstChildElement("mass");
        const char* value = mass != nullptr ? mass->Attribute("value") : nullptr;
        masses += std::string(count ? ", " : "") + "mass " + (value != nullptr ? value : "?");
      }
      if (count > 1) {
        d.doubts.push_back(fmt::format("{} has {} <inertial> elements ({}), but URDF allows one: the first is used, the "
                                       "others are ignored",
                                       where, count, masses));
      }
    }
    int visuals = 0, collisions = 0;
    for (const XMLElement* c = e.FirstChildElement(); c; c = c->NextSiblingElement()) {
      const bool visual = std::strcmp(c->Name(), "visual") == 0;
      if (!visual && std::strcmp(c->Name(), "collision") != 0) continue;
      UrdfShape s;
      s.role = visual ? GeometryRole::Visual : GeometryRole::Collision;
      const char* shape_name = c->Attribute("name");
      s.name = shape_name != nullptr && *shape_name != '\0'
                   ? std::string(shape_name)
                   : l.name + (visual ? "/visual" + std::to_string(visuals) : "/collision" + std::to_string(collisions));
      (visual ? visuals : collisions) += 1;
      try {
        geometry(*c, s, notes);
      } catch (const Unreadable& u) {
        s.problem = u.what;
      }
      if (visual) material(*c, where + ": visual '" + s.name + "'", d);
      l.shapes.push_back(std::move(s));
    }
    for (const std::string& note : notes) d.doubts.push_back(where + ": " + note);
    return l;
  }

  // A <visual>'s <material>: only whether URDF would accept it (abdyn reads no colour).
  void material(const XMLElement& visual, const std::string& where, UrdfDocument& d) {
    const XMLElement* m = visual.FirstChildElement("material");
    if (m == nullptr) return;
    const char* name = m->Attribute("name");
    if (name == nullptr) {
      d.doubts.push_back(where + ": its <material> has no name attribute; ignored (abdyn reads no material)");
    } else if (m->FirstChildElement() == nullptr) {
      material_uses_.emplace_back(where, name);  // a reference to a top-level <material>
    }
  }

  UrdfJoint joint(const XMLElement& e, UrdfDocument& d) const {
    UrdfJoint j;
    const char* name = e.Attribute("name");
    if (name == nullptr) fail("a <joint> has no name attribute");
    j.name = name;
    const std::string where = quoted("joint", j.name);
    const char* type = e.Attribute("type");
    if (type == nullptr) fail(where + " has no type attribute");
    j.type = jointType(type, where);
    if (j.type == UrdfJointType::Spherical) {
      d.doubts.push_back(where + " has type 'spherical', which is not a URDF joint type (some exporters write it): "
                                 "read as a ball joint (3 rotational coordinates, q a unit quaternion); its <axis> and "
                                 "position limits are ignored");
    }
    NumberNotes notes;
    try {
      j.origin = pose(e, notes);
      j.parent = linkName(e, "parent");
      j.child = linkName(e, "child");
      const bool moves_along_axis =
          j.type != UrdfJointType::Fixed && j.type != UrdfJointType::Floating && j.type != UrdfJointType::Spherical;
      if (const XMLElement* axis = e.FirstChildElement("axis"); axis != nullptr && moves_along_axis) {
        if (!numbers(*axis, "xyz", j.axis.data(), 3, notes)) throw Unreadable{"<axis> has no xyz attribute"};
      }
      if (const XMLElement* limit = e.FirstChildElement("limit")) {
        UrdfLimit l;
        optionalNumber(*limit, "lower", l.lower, notes);
        optionalNumber(*limit, "upper", l.upper, notes);
        double x = 0.0;
        if (numbers(*limit, "effort", &x, 1, notes)) l.effort = x;
        if (numbers(*limit, "velocity", &x, 1, notes)) l.velocity = x;
        if ((!l.effort || !l.velocity) && j.type != UrdfJointType::Fixed) {
          const char* missing = !l.effort && !l.velocity ? "effort and velocity attributes" : !l.effort ? "effort attribute" : "velocity attribute";
          d.doubts.push_back(fmt::format("{}: <limit> has no {}, which URDF requires: the joint's {} {} unlimited", where,
                                        missing, !l.effort && !l.velocity ? "effort and velocity" : !l.effort ? "effort" : "velocity",
                                        !l.effort && !l.velocity ? "are" : "is"));
        }
        j.limit = l;
      } else if (j.type == UrdfJointType::Revolute || j.type == UrdfJointType::Prismatic) {
        // Some exporters (Drake's files) leave it out on joints meant to be unbounded.
        d.doubts.push_back(fmt::format("{}: a {} joint without <limit>, which URDF requires: loaded unbounded (no "
                                       "position, effort or velocity limit)", where, type));
      }
      if (const XMLElement* dynamics = e.FirstChildElement("dynamics")) {
        if (!dynamics->Attribute("damping") && !dynamics->Attribute("friction")) {
          throw Unreadable{"<dynamics> has neither a damping nor a friction attribute"};
        }
        UrdfDynamics d;
        optionalNumber(*dynamics, "damping", d.damping, notes);
        optionalNumber(*dynamics, "friction", d.friction, notes);
        j.dynamics = d;
      }
      unused(e, j, d);
      if (const XMLElement* mimic = e.FirstChildElement("mimic")) {
        UrdfMimic m;
        const char* leader = mimic->Attribute("joint");
        if (leader == nullptr) throw Unreadable{"<mimic> has no joint attribute"};
        m.joint = leader;
        optionalNumber(*mimic, "multiplier", m.multiplier, notes);
        optionalNumber(*mimic, "offset", m.offset, notes);
        j.mimic = m;
      }
    } catch (const Unreadable& u) {
      fail(where + ": " + u.what);
    }
    for (const std::string& note : notes) d.doubts.push_back(where + ": " + note);
    return j;
  }

  // Elements and attributes of a joint that its type gives no meaning: one warning each (they are
  // common in exported files, so not refused by strict mode). <mimic> on a fixed joint is the loader's.
  static void unused(const XMLElement& e, const UrdfJoint& j, UrdfDocument& d) {
    const std::string where = quoted("joint", j.name);
    const bool fixed = j.type == UrdfJointType::Fixed;
    const XMLElement* limit = e.FirstChildElement("limit");
    if (limit != nullptr && fixed) {
      d.warnings.push_back(where + " is fixed: its <limit> is ignored");
    } else if (limit != nullptr && j.type != UrdfJointType::Revolute && j.type != UrdfJointType::Prismatic &&
               (limit->Attribute("lower") != nullptr || limit->Attribute("upper") != nullptr)) {
      d.warnings.push_back(where + ": <limit lower upper> are ignored: a joint of this type has no position limits");
    }
    if (fixed && e.FirstChildElement("dynamics") != nullptr) {
      d.warnings.push_back(where + " is fixed: its <dynamics> is ignored");
    }
  }

  UrdfJointType jointType(const std::string& type, const std::string& where) const {
    if (type == "revolute") return UrdfJointType::Revolute;
    if (type == "continuous") return UrdfJointType::Continuous;
    if (type == "prismatic") return UrdfJointType::Prismatic;
    if (type == "fixed") return UrdfJointType::Fixed;
    if (type == "floating") return UrdfJointType::Floating;
    if (type == "planar") return UrdfJointType::Planar;
    if (type == "spherical") return UrdfJointType::Spherical;
    fail(where + " has unknown type '" + type + "'");
  }

  static std::string linkName(const XMLElement& joint, const char* role) {
    const XMLElement* e = joint.FirstChildElement(role);
    const char* link = e != nullptr ? e->Attribute("link") : nullptr;
    if (link == nullptr) throw Unreadable{std::string("no <") + role + " link=\"...\"> element"};
    return link;
  }

  const std::string& source_;
  std::unordered_set<std::string> materials_;  // names of the top-level <material> elements
  std::unordered_map<std::string, std::size_t> link_at_;  // link name -> its index in UrdfDocument::links
  std::set<std::string> xacro_;  // names of the top-level xacro:* elements
  std::set<std::string> others_;  // names of the other top-level elements, which are not read
  std::vector<std::string> includes_;  // the href of each top-level XInclude element
  std::vector<std::pair<std::string, std::string>> material_uses_;  // (visual, material name) of references
};

}  // namespace

bool looksLikeXacro(const std::string& xml) {
  // Outside comments: files xacro generated keep its comments, which often quote ${...} and <xacro:...>.
  std::size_t at = 0;
  while (at < xml.size()) {
    const std::size_t comment = std::min(xml.find("<!--", at), xml.size());
    const std::string_view text(xml.data() + at, comment - at);
    if (text.find("<xacro:") != std::string_view::npos || text.find("${") != std::string_view::npos ||
        text.find("$(") != std::string_view::npos) {
      return true;
    }
    if (comment == xml.size()) break;
    const std::size_t end = xml.find("-->", comment + 4);
    if (end == std::string::npos) break;
    at = end + 3;
  }
  return false;
}

UrdfDocument readUrdfDocument(const std::string& xml, const std::string& source, const XmlOutline& outline) {
  return Reader(source).read(xml, outline);
}

}  // namespace abdyn::internal
