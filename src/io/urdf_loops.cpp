#include "abdyn/io/urdf_loops.hpp"

#include <tinyxml2.h>

#include <cmath>
#include <fstream>
#include <set>

#include "abdyn/error.hpp"
#include "abdyn/spatial/euler.hpp"
#include "io/xml_limits.hpp"
#include "io/xml_numbers.hpp"

namespace abdyn {
namespace {

class LoopReader {
 public:
  LoopReader(const Model& model, std::string source) : model_(model), source_(std::move(source)) {}

  ConstraintSet read(const std::string& xml) {
    internal::checkXmlLimits(xml, source_);  // before tinyxml2 sees the text
    tinyxml2::XMLDocument doc;
    if (doc.Parse(xml.c_str(), xml.size()) != tinyxml2::XML_SUCCESS) {
      throw Error(source_ + ": malformed XML: " + (doc.ErrorStr() ? doc.ErrorStr() : "parse error"));
    }
    const tinyxml2::XMLElement* robot = doc.FirstChildElement("robot");
    if (!robot) throw Error(source_ + ": no <robot> element");
    ConstraintSet set = ConstraintSet::fromMimics(model_);
    std::set<std::string> names;
    for (const tinyxml2::XMLElement* e = robot->FirstChildElement(); e; e = e->NextSiblingElement()) {
      const std::string tag = e->Name();
      if (tag != "loop_joint" && tag != "drake:ball_constraint") continue;
      LoopClosure c = tag == "loop_joint" ? loopJoint(*e, set.loops.size()) : drakeBall(*e, set.loops.size());
      if (!names.insert(c.name).second) fail(c.name, "a loop joint of that name already exists");
      set.loops.push_back(std::move(c));
    }
    try {
      set.validate(model_);
    } catch (const InvalidArgument& e) {
      throw Error(source_ + ": " + e.what());
    }
    return set;
  }

 private:
  [[noreturn]] void fail(const std::string& loop, const std::string& what) const {
    throw Error(source_ + ": loop joint '" + loop + "': " + what);
  }

  Vector3 vector(const tinyxml2::XMLElement& e, const char* attribute, const std::string& loop, bool required) const {
    const char* text = e.Attribute(attribute);
    if (!text) {
      if (required) fail(loop, "<" + std::string(e.Name()) + "> needs the attribute '" + attribute + "'");
      return Vector3::Zero();
    }
    Vector3 x;
    const std::string why = internal::parseNumbers(text, x.data(), 3);
    if (!why.empty()) {
      fail(loop, "<" + std::string(e.Name()) + " " + attribute + "=\"" + text + "\"> must be three finite numbers: " + why);
    }
    return x;
  }

  // (body, X_F_body) of the frame at (xyz, rpy) in the named link's frame.
  std::pair<int, Plx> frame(const std::string& loop, const std::string& link, const Vector3& xyz, const Vector3& rpy) const {
    int id = -1;
    try {
      id = model_.frameId(link);
    } catch (const Error&) {
      fail(loop, "no link named '" + link + "'");
    }
    const Frame& f = model_.frames()[static_cast<std::size_t>(id)];
    return {f.body, Plx::fromPose(rpyToMatrix(rpy), xyz) * f.X_frame_body};
  }

  const tinyxml2::XMLElement& child(const tinyxml2::XMLElement& e, const char* tag, const std::string& loop) const {
    const tinyxml2::XMLElement* c = e.FirstChildElement(tag);
    if (!c) fail(loop, "missing <" + std::string(tag) + ">");
    if (c->NextSiblingElement(tag)) fail(loop, "more than one <" + std::string(tag) + ">");
    return *c;
  }

  std::string linkOf(const tinyxml2::XMLElement& e, const char* attribute, const std::string& loop) const {
    const char* link = e.Attribute(attribute);
    if (!link || !*link) fail(loop, "<" + std::string(e.Name()) + "> needs the attribute '" + attribute + "'");
    return link;
  }

  LoopClosure loopJoint(const tinyxml2::XMLElement& e, std::size_t index) const {
    const char* name_attr = e.Attribute("name");
    const std::string name = name_attr && *name_attr ? name_attr : "#" + std::to_string(index);
    if (!name_attr || !*name_attr) fail(name, "<loop_joint> needs a name");
    const char* type_attr = e.Attribute("type");
    const std::string type = type_attr ? type_attr : "";
    if (type != "revolute" && type != "prismatic" && type != "spherical" && type != "fixed") {
      fail(name, "type must be revolute, prismatic, spherical or fixed, got '" + type + "'");
    }
    const tinyxml2::XMLElement& pred = child(e, "predecessor", name);
    const tinyxml2::XMLElement& succ = child(e, "successor", name);
    const std::string link_a = linkOf(pred, "link", name), link_b = linkOf(succ, "link", name);
    if (link_a == link_b) fail(name, "predecessor and successor are the same link '" + link_a + "'");
    const auto [body_a, X_a] = frame(name, link_a, vector(pred, "xyz", name, false), vector(pred, "rpy", name, false));
    const auto [body_b, X_b] = frame(name, link_b, vector(succ, "xyz", name, false), vector(succ, "rpy", name, false));
    if (body_a == body_b) {
      fail(name, "links '" + link_a + "' and '" + link_b + "' are rigidly joined already (both on body '" +
                     model_.bodyName(body_a) + "'): the loop cannot close anything");
    }
    if (type == "fixed") return LoopClosure::fixed(name, body_a, X_a, body_b, X_b);
    if (type == "spherical") return LoopClosure::spherical(name, body_a, X_a, body_b, X_b);
    const Vector3 axis = vector(child(e, "axis", name), "xyz", name, true);
    if (!(axis.norm() > 1e-12)) fail(name, "<axis xyz> must not be zero");
    return type == "revolute" ? LoopClosure::revolute(name, body_a, X_a, body_b, X_b, axis.normalized())
                              : LoopClosure::prismatic(name, body_a, X_a, body_b, X_b, axis.normalized());
  }

  LoopClosure drakeBall(const tinyxml2::XMLElement& e, std::size_t index) const {
    const std::string name = "drake:ball_constraint#" + std::to_string(index);
    const std::string link_a = linkOf(child(e, "drake:ball_constraint_body_A", name), "name", name);
    const std::string link_b = linkOf(child(e, "drake:ball_constraint_body_B", name), "name", name);
    if (link_a == link_b) fail(name, "body_A and body_B are the same link '" + link_a + "'");
    const Vector3 p_AP = vector(child(e, "drake:ball_constraint_p_AP", name), "value", name, true);
    const Vector3 p_BQ = vector(child(e, "drake:ball_constraint_p_BQ", name), "value", name, true);
    const auto [body_a, X_a] = frame(name, link_a, p_AP, Vector3::Zero());
    const auto [body_b, X_b] = frame(name, link_b, p_BQ, Vector3::Zero());
    if (body_a == body_b) fail(name, "links '" + link_a + "' and '" + link_b + "' are on the same body");
    return LoopClosure::spherical(name, body_a, X_a, body_b, X_b);
  }

  const Model& model_;
  std::string source_;
};

}  // namespace

ConstraintSet loadUrdfLoops(const std::string& path, const Model& model) {
  internal::checkXmlFileSize(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot read the URDF file");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return LoopReader(model, path).read(text);
}

ConstraintSet loadUrdfLoopsString(const std::string& xml, const Model& model) { return LoopReader(model, "<string>").read(xml); }

}  // namespace abdyn
