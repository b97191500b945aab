#include "io/urdf_document.hpp"

#include <cstring>
#include <optional>
#include <unordered_set>
#include <utility>

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

// `count` numbers from the attribute; false (and `out` untouched) if it is missing.
bool numbers(const XMLElement& e, const char* attribute, double* out, int count) {
  const char* text = e.Attribute(attribute);
  if (text == nullptr) return false;
  const std::string why = parseNumbers(text, out, count);
  if (!why.empty()) throw Unreadable{"<" + std::string(e.Name()) + " " + attribute + "=\"" + text + "\">: " + why};
  return true;
}

double requiredNumber(const XMLElement& e, const char* attribute) {
  double x = 0.0;
  if (!numbers(e, attribute, &x, 1)) throw Unreadable{tag(e) + " has no " + attribute + " attribute"};
  return x;
}

void optionalNumber(const XMLElement& e, const char* attribute, double& x) { numbers(e, attribute, &x, 1); }

Vector3 vector3(const XMLElement& e, const char* attribute, const Vector3& otherwise) {
  Vector3 v = otherwise;
  numbers(e, attribute, v.data(), 3);
  return v;
}

// The first <origin> child of `parent` (URDF allows one; later ones are ignored, as urdfdom does).
UrdfPose pose(const XMLElement& parent) {
  UrdfPose p;
  if (const XMLElement* o = parent.FirstChildElement("origin")) {
    p.xyz = vector3(*o, "xyz", Vector3::Zero());
    p.rpy = vector3(*o, "rpy", Vector3::Zero());
  }
  return p;
}

const XMLElement& requiredChild(const XMLElement& parent, const char* name) {
  const XMLElement* c = parent.FirstChildElement(name);
  if (c == nullptr) throw Unreadable{tag(parent) + " has no <" + name + "> element"};
  return *c;
}

UrdfInertial inertial(const XMLElement& e) {
  UrdfInertial in;
  in.origin = pose(e);
  in.mass = requiredNumber(requiredChild(e, "mass"), "value");
  const XMLElement& I = requiredChild(e, "inertia");
  in.ixx = requiredNumber(I, "ixx");
  in.ixy = requiredNumber(I, "ixy");
  in.ixz = requiredNumber(I, "ixz");
  in.iyy = requiredNumber(I, "iyy");
  in.iyz = requiredNumber(I, "iyz");
  in.izz = requiredNumber(I, "izz");
  return in;
}

// The shape of a <visual> or <collision>: the first element inside its <geometry>.
void geometry(const XMLElement& e, UrdfShape& s) {
  s.origin = pose(e);
  const XMLElement& g = requiredChild(e, "geometry");
  const XMLElement* shape = g.FirstChildElement();
  if (shape == nullptr) throw Unreadable{"<geometry> has no shape element"};
  const std::string kind = shape->Name();
  if (kind == "box") {
    s.shape = ShapeType::Box;
    if (!numbers(*shape, "size", s.size.data(), 3)) throw Unreadable{"<box> has no size attribute"};
  } else if (kind == "cylinder") {
    s.shape = ShapeType::Cylinder;
    s.size = Vector3(requiredNumber(*shape, "radius"), requiredNumber(*shape, "length"), 0.0);
  } else if (kind == "sphere") {
    s.shape = ShapeType::Sphere;
    s.size = Vector3(requiredNumber(*shape, "radius"), 0.0, 0.0);
  } else if (kind == "mesh") {
    s.shape = ShapeType::Mesh;
    const char* filename = shape->Attribute("filename");
    if (filename == nullptr) throw Unreadable{"<mesh> has no filename attribute"};
    s.mesh_filename = filename;
    s.mesh_scale = vector3(*shape, "scale", Vector3::Ones());
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

  UrdfDocument robotElement(const XMLElement& robot) const {
    const char* name = robot.Attribute("name");
    if (name == nullptr) fail("<robot> has no name attribute");
    UrdfDocument d;
    d.name = name;
    return d;
  }

  // One child of <robot>: a link, a joint, a material; anything else is not read.
  void element(const XMLElement& e, UrdfDocument& d) {
    const char* kind = e.Name();
    if (std::strcmp(kind, "link") == 0) {
      d.links.push_back(link(e, d));
    } else if (std::strcmp(kind, "joint") == 0) {
      d.joints.push_back(joint(e));
    } else if (std::strcmp(kind, "material") == 0) {
      if (const char* material = e.Attribute("name")) {
        materials_.insert(material);
      } else {
        d.doubts.push_back("a top-level <material> has no name attribute; ignored (abdyn reads no material)");
      }
    }
  }

  // What needs the whole document: materials named before or after their use.
  void finish(UrdfDocument& d) const {
    if (d.links.empty()) fail("no <link> element");
    for (const auto& [where, material] : material_uses_) {
      if (materials_.count(material) == 0) {
        d.warnings.push_back(where + ": material '" + material + "' is defined nowhere in the file (abdyn reads no material)");
      }
    }
  }

  UrdfLink link(const XMLElement& e, UrdfDocument& d) {
    UrdfLink l;
    const char* name = e.Attribute("name");
    if (name == nullptr) fail("a <link> has no name attribute");
    l.name = name;
    const std::string where = quoted("link", l.name);
    if (const XMLElement* in = e.FirstChildElement("inertial")) {
      try {
        l.inertial = inertial(*in);
      } catch (const Unreadable& u) {
        fail(where + ": <inertial>: " + u.what);
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
        geometry(*c, s);
      } catch (const Unreadable& u) {
        s.problem = u.what;
      }
      if (visual) material(*c, where + ": visual '" + s.name + "'", d);
      l.shapes.push_back(std::move(s));
    }
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

  UrdfJoint joint(const XMLElement& e) const {
    UrdfJoint j;
    const char* name = e.Attribute("name");
    if (name == nullptr) fail("a <joint> has no name attribute");
    j.name = name;
    const std::string where = quoted("joint", j.name);
    const char* type = e.Attribute("type");
    if (type == nullptr) fail(where + " has no type attribute");
    j.type = jointType(type, where);
    try {
      j.origin = pose(e);
      j.parent = linkName(e, "parent");
      j.child = linkName(e, "child");
      const bool moves_along_axis = j.type != UrdfJointType::Fixed && j.type != UrdfJointType::Floating;
      if (const XMLElement* axis = e.FirstChildElement("axis"); axis != nullptr && moves_along_axis) {
        if (!numbers(*axis, "xyz", j.axis.data(), 3)) throw Unreadable{"<axis> has no xyz attribute"};
      }
      if (const XMLElement* limit = e.FirstChildElement("limit")) {
        UrdfLimit l;
        optionalNumber(*limit, "lower", l.lower);
        optionalNumber(*limit, "upper", l.upper);
        l.effort = requiredNumber(*limit, "effort");
        l.velocity = requiredNumber(*limit, "velocity");
        j.limit = l;
      } else if (j.type == UrdfJointType::Revolute || j.type == UrdfJointType::Prismatic) {
        throw Unreadable{std::string("a ") + type + " joint needs a <limit> element (effort and velocity, lower and upper)"};
      }
      if (const XMLElement* dynamics = e.FirstChildElement("dynamics")) {
        if (!dynamics->Attribute("damping") && !dynamics->Attribute("friction")) {
          throw Unreadable{"<dynamics> has neither a damping nor a friction attribute"};
        }
        UrdfDynamics d;
        optionalNumber(*dynamics, "damping", d.damping);
        optionalNumber(*dynamics, "friction", d.friction);
        j.dynamics = d;
      }
      if (const XMLElement* mimic = e.FirstChildElement("mimic")) {
        UrdfMimic m;
        const char* leader = mimic->Attribute("joint");
        if (leader == nullptr) throw Unreadable{"<mimic> has no joint attribute"};
        m.joint = leader;
        optionalNumber(*mimic, "multiplier", m.multiplier);
        optionalNumber(*mimic, "offset", m.offset);
        j.mimic = m;
      }
    } catch (const Unreadable& u) {
      fail(where + ": " + u.what);
    }
    return j;
  }

  UrdfJointType jointType(const std::string& type, const std::string& where) const {
    if (type == "revolute") return UrdfJointType::Revolute;
    if (type == "continuous") return UrdfJointType::Continuous;
    if (type == "prismatic") return UrdfJointType::Prismatic;
    if (type == "fixed") return UrdfJointType::Fixed;
    if (type == "floating") return UrdfJointType::Floating;
    if (type == "planar") return UrdfJointType::Planar;
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
  std::vector<std::pair<std::string, std::string>> material_uses_;  // (visual, material name) of references
};

}  // namespace

UrdfDocument readUrdfDocument(const std::string& xml, const std::string& source, const XmlOutline& outline) {
  return Reader(source).read(xml, outline);
}

}  // namespace abdyn::internal
