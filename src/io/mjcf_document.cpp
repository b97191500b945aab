#include "io/mjcf_document.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include <tinyxml2.h>

#include "abdyn/error.hpp"
#include "io/xml_limits.hpp"
#include "io/xml_numbers.hpp"

namespace abdyn::internal {
// A named namespace rather than an anonymous one: the unity build merges the files' anonymous namespaces.
namespace mjcf_document {

using tinyxml2::XMLElement;

constexpr int kMaxIncludeDepth = 16;
constexpr int kMaxIncludedFiles = 1000;
constexpr double kEps = 1e-14;  // MuJoCo's mjEPS: the smallest norm of a vector it normalises

// One element of the document with <include> expanded: the element, the file it was written in and its
// children (includes replaced by the included files' top-level children).
struct Node {
  const XMLElement* e = nullptr;
  const std::string* file = nullptr;
  std::vector<Node> children;

  std::string kind() const { return e->Name(); }
  const char* attribute(const char* name) const { return e->Attribute(name); }
};

// A <default> class: per element kind ("joint", "geom", "site", "mesh", "equality", "actuator"), the
// attribute values it sets, with the element that set them (for messages).
struct DefaultClass {
  std::map<std::string, std::map<std::string, std::pair<std::string, MjcfWhere>>> values;
};

// The number of white-space separated words in `text`.
int countWords(const char* text) {
  int words = 0;
  for (const char* p = text; *p != '\0';) {
    while (*p != '\0' && isXmlSpace(*p)) ++p;
    if (*p == '\0') break;
    ++words;
    while (*p != '\0' && !isXmlSpace(*p)) ++p;
  }
  return words;
}

std::string describe(const Node& n) {
  std::string d = *n.file + ":" + std::to_string(n.e->GetLineNum()) + ": <" + n.kind();
  if (const char* name = n.attribute("name")) d += std::string(" name='") + name + "'";
  return d + ">";
}

// MuJoCo's quaternion product (user_util's mjuu_mulquat, then normalised).
Vector4 mulQuat(const Vector4& a, const Vector4& b) {
  Vector4 r(a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
            a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
            a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
            a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]);
  const double n = r.norm();
  return n > 0.0 ? Vector4(r / n) : r;
}

// The shortest rotation taking z to the unit vector v (MuJoCo's mjuu_z2quat).
Vector4 zToQuat(const Vector3& v) {
  Vector3 axis = Vector3::UnitZ().cross(v);
  const double s = axis.norm();
  if (s < 1e-10) {
    axis = Vector3::UnitX();
  } else {
    axis /= s;
  }
  const double angle = std::atan2(s, v[2]);
  return Vector4(std::cos(angle / 2), axis[0] * std::sin(angle / 2), axis[1] * std::sin(angle / 2),
                 axis[2] * std::sin(angle / 2));
}

// The quaternion of the rotation whose columns are x, y, z (MuJoCo's mjuu_frame2quat).
Vector4 frameToQuat(const Vector3& x, const Vector3& y, const Vector3& z) {
  const Vector3* c[3] = {&x, &y, &z};  // c[col][row]
  const auto m = [&](int col, int row) { return (*c[col])[row]; };
  Vector4 q;
  if (m(0, 0) + m(1, 1) + m(2, 2) > 0) {
    q[0] = 0.5 * std::sqrt(1 + m(0, 0) + m(1, 1) + m(2, 2));
    q[1] = 0.25 * (m(1, 2) - m(2, 1)) / q[0];
    q[2] = 0.25 * (m(2, 0) - m(0, 2)) / q[0];
    q[3] = 0.25 * (m(0, 1) - m(1, 0)) / q[0];
  } else if (m(0, 0) > m(1, 1) && m(0, 0) > m(2, 2)) {
    q[1] = 0.5 * std::sqrt(1 + m(0, 0) - m(1, 1) - m(2, 2));
    q[0] = 0.25 * (m(1, 2) - m(2, 1)) / q[1];
    q[2] = 0.25 * (m(1, 0) + m(0, 1)) / q[1];
    q[3] = 0.25 * (m(2, 0) + m(0, 2)) / q[1];
  } else if (m(1, 1) > m(2, 2)) {
    q[2] = 0.5 * std::sqrt(1 - m(0, 0) + m(1, 1) - m(2, 2));
    q[0] = 0.25 * (m(2, 0) - m(0, 2)) / q[2];
    q[1] = 0.25 * (m(1, 0) + m(0, 1)) / q[2];
    q[3] = 0.25 * (m(2, 1) + m(1, 2)) / q[2];
  } else {
    q[3] = 0.5 * std::sqrt(1 - m(0, 0) - m(1, 1) + m(2, 2));
    q[0] = 0.25 * (m(0, 1) - m(1, 0)) / q[3];
    q[1] = 0.25 * (m(2, 0) + m(0, 2)) / q[3];
    q[2] = 0.25 * (m(2, 1) + m(1, 2)) / q[3];
  }
  return q;
}

class Reader {
 public:
  Reader(std::string source, std::string base_dir) : source_(std::move(source)), base_dir_(std::move(base_dir)) {}

  MjcfDocument read(const std::string& xml) {
    const std::string* file = &files_.emplace_back(source_);
    const XMLElement* root = parse(xml, *file);
    if (std::strcmp(root->Name(), "mujoco") != 0) {
      throw Error(source_ + ": the top element is <" + root->Name() + ">, not <mujoco> (not an MJCF file)");
    }
    std::vector<std::string> stack;
    Node top = expand(*root, file, 0, stack);
    MjcfDocument d;
    if (const char* model = root->Attribute("model")) d.model_name = model;
    // MuJoCo reads the sections in this order, wherever they are written.
    for (const Node& s : top.children) {
      if (s.kind() == "compiler") compiler(s, d.compiler);
    }
    for (const Node& s : top.children) {
      if (s.kind() == "option") option(s, d.option);
    }
    defaults_[main_];
    for (const Node& s : top.children) {
      if (s.kind() == "default") defaultClass(s, "");
    }
    for (const Node& s : top.children) {
      if (s.kind() == "asset") asset(s, d);
    }
    d.bodies.emplace_back();
    d.bodies[0].name = "world";
    for (const Node& s : top.children) {
      if (s.kind() == "worldbody") bodyChildren(s, 0, main_, d);
    }
    for (const Node& s : top.children) {
      const std::string k = s.kind();
      if (k == "equality") {
        for (const Node& e : s.children) equality(e, d);
      } else if (k == "actuator") {
        for (const Node& e : s.children) actuator(e, d);
      } else if (k == "keyframe") {
        for (const Node& e : s.children) key(e, d);
      } else if (k == "tendon") {
        note("<tendon>: tendons are not modelled (their lengths, limits, springs and forces are ignored)");
      } else if (k == "sensor") {
        note("<sensor>: sensors are not modelled");
      } else if (k == "contact") {
        for (const Node& e : s.children) contact(e, d);
      } else if (k == "visual" || k == "statistic") {
        note("<" + k + ">: visualisation settings are not read");
      } else if (k == "custom" || k == "extension" || k == "size") {
        note("<" + k + ">: not read");
      } else if (k != "compiler" && k != "option" && k != "default" && k != "asset" && k != "worldbody") {
        fail(s, "unknown MJCF section <" + k + ">");
      }
    }
    if (d.option.integrator != "Euler") {
      note("<option integrator='" + d.option.integrator + "'>: read; abdyn's integrators are chosen by the caller");
    }
    d.not_modelled = std::move(notes_);
    return d;
  }

 private:
  [[noreturn]] void fail(const Node& n, const std::string& what) const { throw Error(describe(n) + ": " + what); }

  void note(const std::string& what) {
    if (noted_.insert(what).second) notes_.push_back(what);
  }

  // ------------------------------------------------------------------------------------------------
  // Files and includes.

  const XMLElement* parse(const std::string& xml, const std::string& file) {
    checkXmlLimits(xml, file, XmlLimits{}, nullptr);
    auto& doc = docs_.emplace_back(std::make_unique<tinyxml2::XMLDocument>());
    if (doc->Parse(xml.c_str(), xml.size()) != tinyxml2::XML_SUCCESS) {
      throw Error(file + ": malformed XML: " + (doc->ErrorStr() != nullptr ? doc->ErrorStr() : "parse error"));
    }
    const XMLElement* root = doc->RootElement();
    if (root == nullptr) throw Error(file + ": no element");
    return root;
  }

  std::string resolve(const std::string& name) const {
    const std::filesystem::path p(name);
    if (p.is_absolute() || base_dir_.empty()) return p.string();
    return (std::filesystem::path(base_dir_) / p).string();
  }

  Node expand(const XMLElement& e, const std::string* file, int include_depth, std::vector<std::string>& stack) {
    Node n{&e, file, {}};
    if (++elements_ > XmlLimits{}.max_elements) {
      throw Error(describe(n) + ": more than " + std::to_string(XmlLimits{}.max_elements) +
                  " elements with the included files");
    }
    for (const XMLElement* c = e.FirstChildElement(); c != nullptr; c = c->NextSiblingElement()) {
      if (std::strcmp(c->Name(), "include") != 0) {
        n.children.push_back(expand(*c, file, include_depth, stack));
        continue;
      }
      const Node inc{c, file, {}};
      const char* name = c->Attribute("file");
      if (name == nullptr) fail(inc, "no file attribute");
      const std::string path = resolve(name);
      std::error_code ec;
      std::string canonical = std::filesystem::weakly_canonical(path, ec).string();
      if (ec) canonical = path;
      for (const std::string& s : stack) {
        if (s == canonical) fail(inc, "'" + path + "' includes itself (an include cycle)");
      }
      if (include_depth + 1 > kMaxIncludeDepth) {
        fail(inc, "includes nest more than " + std::to_string(kMaxIncludeDepth) + " levels deep");
      }
      if (++included_ > kMaxIncludedFiles) {
        fail(inc, "more than " + std::to_string(kMaxIncludedFiles) + " included files");
      }
      if (!std::filesystem::is_regular_file(path, ec)) fail(inc, "cannot open '" + path + "' (not a regular file)");
      checkXmlFileSize(path);
      std::ifstream in(path, std::ios::binary);
      if (!in) fail(inc, "cannot open '" + path + "'");
      const std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      const std::string* inc_file = &files_.emplace_back(path);
      const XMLElement* root = parse(xml, *inc_file);
      stack.push_back(canonical);
      Node included = expand(*root, inc_file, include_depth + 1, stack);
      stack.pop_back();
      for (Node& k : included.children) n.children.push_back(std::move(k));
    }
    return n;
  }

  // ------------------------------------------------------------------------------------------------
  // Attributes, with the values of a default class behind the element's own.

  struct Attrs {
    const Reader& r;
    const Node& n;
    const std::map<std::string, std::pair<std::string, MjcfWhere>>* defaults;  // may be null

    // The value and where it came from ("" for the element itself).
    const char* get(const char* name, std::string* from = nullptr) const {
      if (const char* v = n.attribute(name)) return v;
      if (defaults != nullptr) {
        const auto it = defaults->find(name);
        if (it != defaults->end()) {
          if (from != nullptr) *from = " (set by " + it->second.second.text + ")";
          return it->second.first.c_str();
        }
      }
      return nullptr;
    }
    bool has(const char* name) const { return get(name) != nullptr; }
    [[noreturn]] void bad(const char* name, const char* value, const std::string& why, const std::string& from) const {
      r.fail(n, std::string(name) + "=\"" + value + "\"" + from + ": " + why);
    }
    // Exactly `count` numbers; false if the attribute is missing.
    bool numbers(const char* name, double* out, int count) const {
      std::string from;
      const char* v = get(name, &from);
      if (v == nullptr) return false;
      const std::string why = parseNumbers(v, out, count);
      if (!why.empty()) bad(name, v, why, from);
      return true;
    }
    // Between 1 and `most` numbers (MuJoCo pads the rest); 0 if missing.
    int someNumbers(const char* name, double* out, int most) const {
      std::string from;
      const char* v = get(name, &from);
      if (v == nullptr) return 0;
      const int words = countWords(v);
      if (words == 0 || words > most) {
        bad(name, v, "expected 1 to " + std::to_string(most) + " numbers, found " + std::to_string(words), from);
      }
      const std::string why = parseNumbers(v, out, words);
      if (!why.empty()) bad(name, v, why, from);
      return words;
    }
    double number(const char* name, double otherwise) const {
      numbers(name, &otherwise, 1);
      return otherwise;
    }
    Vector3 vector3(const char* name, const Vector3& otherwise) const {
      Vector3 x = otherwise;
      numbers(name, x.data(), 3);
      return x;
    }
    std::string text(const char* name, const std::string& otherwise = "") const {
      const char* v = get(name);
      return v != nullptr ? std::string(v) : otherwise;
    }
    // One of `words`; its index, or `otherwise` if missing.
    int keyword(const char* name, std::initializer_list<const char*> words, int otherwise) const {
      std::string from;
      const char* v = get(name, &from);
      if (v == nullptr) return otherwise;
      int k = 0;
      std::string list;
      for (const char* w : words) {
        if (std::strcmp(v, w) == 0) return k;
        list += (k ? ", " : "") + std::string(w);
        ++k;
      }
      bad(name, v, "expected one of " + list, from);
    }
    int boolean(const char* name, int otherwise) const { return keyword(name, {"false", "true"}, otherwise); }
  };

  Attrs attrs(const Node& n, const std::string& cls, const char* kind) const {
    const auto c = defaults_.find(cls);
    if (c == defaults_.end()) return Attrs{*this, n, nullptr};
    const auto k = c->second.values.find(kind);
    return Attrs{*this, n, k == c->second.values.end() ? nullptr : &k->second};
  }

  // The class an element uses: its own class attribute, else `inherited`.
  std::string classOf(const Node& n, const std::string& inherited) const {
    const char* c = n.attribute("class");
    if (c == nullptr) return inherited;
    if (defaults_.count(c) == 0) fail(n, std::string("unknown default class '") + c + "'");
    return c;
  }

  // ------------------------------------------------------------------------------------------------
  // Frames.

  double angle(double a) const { return compiler_.degree ? a / 180.0 * M_PI : a; }

  // The orientation of an element: quat, axisangle, xyaxes, zaxis or euler (one of them), normalised.
  Vector4 orientation(const Attrs& a) const {
    static const char* const kinds[] = {"quat", "axisangle", "xyaxes", "zaxis", "euler"};
    int given = 0;
    for (const char* k : kinds) given += a.n.attribute(k) != nullptr ? 1 : 0;
    if (given > 1) a.r.fail(a.n, "more than one orientation (quat, axisangle, xyaxes, zaxis, euler) is given");
    Vector4 q(1.0, 0.0, 0.0, 0.0);
    const auto tooSmall = [&](const char* name, const char* what) {
      a.r.fail(a.n, std::string(name) + ": " + what + " is too small to normalise");
    };
    if (a.numbers("quat", q.data(), 4)) {
      const double n = q.norm();
      if (n < 1e-7) tooSmall("quat", "the quaternion");  // sqrt(mjEPS): MuJoCo leaves it unnormalised
      q /= n;
    }
    double x[6];
    if (a.numbers("axisangle", x, 4)) {
      Vector3 axis(x[0], x[1], x[2]);
      if (axis.squaredNorm() < kEps) tooSmall("axisangle", "the axis");
      axis.normalize();
      const double half = angle(x[3]) / 2;
      q = Vector4(std::cos(half), std::sin(half) * axis[0], std::sin(half) * axis[1], std::sin(half) * axis[2]);
    }
    if (a.numbers("xyaxes", x, 6)) {
      Vector3 ax(x[0], x[1], x[2]), ay(x[3], x[4], x[5]);
      if (ax.squaredNorm() < kEps) tooSmall("xyaxes", "the x axis");
      ax.normalize();
      ay -= ax * ax.dot(ay);
      if (ay.squaredNorm() < kEps) tooSmall("xyaxes", "the y axis orthogonal to x");
      ay.normalize();
      Vector3 az = ax.cross(ay);
      az.normalize();
      q = frameToQuat(ax, ay, az);
    }
    if (a.numbers("zaxis", x, 3)) {
      Vector3 z(x[0], x[1], x[2]);
      if (z.squaredNorm() < kEps) tooSmall("zaxis", "the z axis");
      q = zToQuat(z.normalized());
    }
    if (a.numbers("euler", x, 3)) {
      q = Vector4(1.0, 0.0, 0.0, 0.0);
      for (int i = 0; i < 3; ++i) {
        const double half = angle(x[i]) / 2;
        const char axis = compiler_.eulerseq[static_cast<std::size_t>(i)];
        Vector4 r(std::cos(half), 0.0, 0.0, 0.0);
        r[1 + (std::tolower(axis) - 'x')] = std::sin(half);
        q = std::islower(axis) ? mulQuat(q, r) : mulQuat(r, q);  // moving axes: post-multiply
      }
      q.normalize();
    }
    return q;
  }

  MjcfPose pose(const Attrs& a) const {
    MjcfPose p;
    p.pos = a.vector3("pos", Vector3::Zero());
    p.quat = orientation(a);
    return p;
  }

  // ------------------------------------------------------------------------------------------------
  // Sections.

  void compiler(const Node& n, MjcfCompiler& c) {
    const Attrs a{*this, n, nullptr};
    if (a.keyword("coordinate", {"local", "global"}, 0) == 1) {
      fail(n, "coordinate=\"global\" is not supported by abdyn (MuJoCo 2.2.2 reads it; write local coordinates)");
    }
    c.degree = a.keyword("angle", {"radian", "degree"}, c.degree ? 1 : 0) == 1;
    if (const char* seq = n.attribute("eulerseq")) {
      if (std::strlen(seq) != 3 || std::strspn(seq, "xyzXYZ") != 3) {
        fail(n, std::string("eulerseq=\"") + seq + "\": expected three of x, y, z, X, Y, Z");
      }
      c.eulerseq = seq;
    }
    c.inertiafromgeom = static_cast<MjcfInertiaFromGeom>(a.keyword("inertiafromgeom", {"false", "true", "auto"},
                                                                   static_cast<int>(c.inertiafromgeom)));
    double range[2];
    if (a.numbers("inertiagrouprange", range, 2)) {
      c.group_lo = static_cast<int>(range[0]);
      c.group_hi = static_cast<int>(range[1]);
    }
    c.boundmass = a.number("boundmass", c.boundmass);
    c.boundinertia = a.number("boundinertia", c.boundinertia);
    c.balanceinertia = a.boolean("balanceinertia", c.balanceinertia ? 1 : 0) == 1;
    c.settotalmass = a.number("settotalmass", c.settotalmass);
    c.meshdir = a.text("meshdir", c.meshdir);
    c.assetdir = a.text("assetdir", c.assetdir);
    c.autolimits = a.boolean("autolimits", c.autolimits ? 1 : 0) == 1;
    c.exactmeshinertia = a.boolean("exactmeshinertia", c.exactmeshinertia ? 1 : 0) == 1;
    compiler_ = c;
  }

  void option(const Node& n, MjcfOption& o) {
    const Attrs a{*this, n, nullptr};
    o.timestep = a.number("timestep", o.timestep);
    if (!(o.timestep > 0.0)) fail(n, "timestep must be positive");
    o.gravity = a.vector3("gravity", o.gravity);
    if (a.keyword("integrator", {"Euler", "RK4", "implicit"}, -1) >= 0) o.integrator = n.attribute("integrator");
    o.predefined_only = a.keyword("collision", {"all", "predefined", "dynamic"}, 0) == 1;
    if (a.number("density", 0.0) > 0.0 || a.number("viscosity", 0.0) > 0.0) {
      note("<option density/viscosity>: fluid forces are not modelled (MuJoCo adds them to qfrc_passive)");
    }
    for (const Node& f : n.children) {
      if (f.kind() != "flag") continue;
      const Attrs fa{*this, f, nullptr};
      if (const int g = fa.keyword("gravity", {"disable", "enable"}, -1); g >= 0) o.gravity_disabled = g == 0;
      if (const int p = fa.keyword("passive", {"disable", "enable"}, -1); p >= 0) o.passive_disabled = p == 0;
      for (const char* off : {"contact", "constraint"}) {
        if (const int c = fa.keyword(off, {"disable", "enable"}, -1); c >= 0) o.contact_disabled = o.contact_disabled || c == 0;
      }
      if (const int p = fa.keyword("filterparent", {"disable", "enable"}, -1); p >= 0) o.filterparent_disabled = p == 0;
    }
  }

  // A <default> element and its nested ones. The top-level one is MuJoCo's class 0, named "main" unless
  // its class attribute names it; elements without a class use it.
  void defaultClass(const Node& n, const std::string& parent) {
    std::string name = n.attribute("class") ? n.attribute("class") : "";
    if (parent.empty()) {
      if (name.empty()) name = "main";
      if (name != main_) {
        defaults_[name] = defaults_[main_];
        defaults_.erase(main_);
        main_ = name;
      }
    } else {
      if (name.empty()) fail(n, "a nested <default> has no class attribute");
      if (defaults_.count(name) != 0) fail(n, "default class '" + name + "' is defined twice");
      defaults_[name] = defaults_[parent];
    }
    for (const Node& c : n.children) {
      std::string kind = c.kind();
      if (kind == "default") continue;
      if (isActuator(kind)) kind = "actuator";
      auto& values = defaults_[name].values[kind];
      for (const tinyxml2::XMLAttribute* at = c.e->FirstAttribute(); at != nullptr; at = at->Next()) {
        values[at->Name()] = {at->Value(), MjcfWhere{describe(c) + " in default class '" + name + "'"}};
      }
    }
    for (const Node& c : n.children) {
      if (c.kind() == "default") defaultClass(c, name);
    }
  }

  static bool isActuator(const std::string& k) {
    return k == "general" || k == "motor" || k == "position" || k == "velocity" || k == "intvelocity" ||
           k == "damper" || k == "cylinder" || k == "muscle" || k == "adhesion";
  }

  void asset(const Node& s, MjcfDocument& d) {
    for (const Node& n : s.children) {
      if (n.kind() != "mesh") {
        note("<asset> <" + n.kind() + ">: not read (abdyn reads mesh assets only)");
        continue;
      }
      const std::string cls = classOf(n, main_);
      const Attrs a = attrs(n, cls, "mesh");
      MjcfMesh m;
      m.where = MjcfWhere{describe(n)};
      m.file = a.text("file");
      m.scale = a.vector3("scale", Vector3::Ones());
      m.refpos = a.vector3("refpos", Vector3::Zero());
      a.numbers("refquat", m.refquat.data(), 4);
      m.density = attrs(n, cls, "geom").number("density", 1000.0);
      if (m.file.empty()) {
        m.name = a.text("name");
        if (m.name.empty()) fail(n, "a mesh without a file needs a name");
        m.vertex = numberList(n, "vertex");
        for (const double f : numberList(n, "face")) {
          if (f != std::floor(f) || std::abs(f) > 1e9) fail(n, "face: the indices must be integers");
          m.face.push_back(static_cast<int>(f));
        }
        if (m.vertex.empty()) fail(n, "neither file nor vertex is given");
        if (m.vertex.size() % 3 != 0) fail(n, "vertex: the number of coordinates is not a multiple of 3");
        if (m.face.size() % 3 != 0) fail(n, "face: the number of indices is not a multiple of 3");
        for (const int f : m.face) {
          if (f < 0 || static_cast<std::size_t>(f) >= m.vertex.size() / 3) {
            fail(n, "face: vertex index " + std::to_string(f) + " out of range (" + std::to_string(m.vertex.size() / 3) +
                        " vertices)");
          }
        }
      } else {
        m.name = a.text("name", std::filesystem::path(m.file).stem().string());
        const std::string dir = !compiler_.meshdir.empty() ? compiler_.meshdir : compiler_.assetdir;
        std::filesystem::path p(m.file);
        if (!p.is_absolute() && !dir.empty()) p = std::filesystem::path(dir) / p;
        m.file = resolve(p.string());
      }
      d.meshes.push_back(std::move(m));
    }
  }

  // The children of the world or of a body: <inertial>, joints, geoms, sites and bodies.
  void bodyChildren(const Node& n, int body, const std::string& cls, MjcfDocument& d) {
    for (const Node& c : n.children) {
      const std::string k = c.kind();
      const std::string ccls = classOf(c, cls);
      if (k == "body") {
        MjcfBody b;
        b.where = MjcfWhere{describe(c)};
        b.parent = body;
        const Attrs a{*this, c, nullptr};
        b.name = a.text("name");
        b.pose = pose(a);
        b.mocap = a.boolean("mocap", 0) == 1;
        std::string child_cls = cls;
        if (const char* cc = c.attribute("childclass")) {
          if (defaults_.count(cc) == 0) fail(c, std::string("unknown default childclass '") + cc + "'");
          child_cls = cc;
        }
        d.bodies.push_back(std::move(b));
        bodyChildren(c, static_cast<int>(d.bodies.size()) - 1, child_cls, d);
      } else if (k == "inertial") {
        if (body == 0) fail(c, "the world body cannot have an <inertial>");
        const Attrs a{*this, c, nullptr};
        MjcfInertial in;
        in.where = MjcfWhere{describe(c)};
        if (!a.has("pos")) fail(c, "no pos attribute");
        if (!a.numbers("mass", &in.mass, 1)) fail(c, "no mass attribute");
        std::array<double, 6> full{};
        const bool has_full = a.numbers("fullinertia", full.data(), 6);
        if (has_full && a.has("quat")) fail(c, "more than one orientation (quat and fullinertia) is given");
        in.pose = pose(a);
        in.diag = a.vector3("diaginertia", Vector3::Zero());
        if (has_full) in.full = full;
        d.bodies[static_cast<std::size_t>(body)].inertial = in;
      } else if (k == "joint" || k == "freejoint") {
        if (body == 0) fail(c, "the world body cannot have joints");
        d.bodies[static_cast<std::size_t>(body)].joints.push_back(joint(c, ccls, k == "freejoint"));
      } else if (k == "geom") {
        d.bodies[static_cast<std::size_t>(body)].geoms.push_back(geom(c, ccls));
      } else if (k == "site") {
        const Attrs a = attrs(c, ccls, "site");
        MjcfSite s;
        s.where = MjcfWhere{describe(c)};
        s.name = a.text("name");
        double ft[6];
        if (a.numbers("fromto", ft, 6)) {
          const Vector3 from(ft[0], ft[1], ft[2]), to(ft[3], ft[4], ft[5]);
          s.pose.pos = (from + to) / 2;
          const Vector3 dir = from - to;
          if (dir.norm() < 1e-15) fail(c, "fromto points coincide");
          s.pose.quat = zToQuat(dir.normalized());
        } else {
          s.pose = pose(a);
        }
        d.bodies[static_cast<std::size_t>(body)].sites.push_back(std::move(s));
      } else if (k == "camera" || k == "light") {
        note("<" + k + ">: not read (rendering only)");
      } else if (k == "composite") {
        composite(c, body, d);
      } else {
        fail(c, "unknown element <" + k + "> in a body");
      }
    }
  }

  // ------------------------------------------------------------------------------------------------
  // <composite>, as MuJoCo 2.2.2 generates it (user_composite.cc): types particle, grid, rope and loop.
  // The generated elements take MuJoCo's built-in defaults, not the file's classes, with the attributes of
  // the composite's own <geom> and <joint kind>.

  struct CompositeJoint {
    bool given = false;
    double stiffness = 0.0, damping = 0.0, armature = 0.0, frictionloss = 0.0;
  };

  void composite(const Node& n, int body, MjcfDocument& d) {
    static const char* const kTypes[] = {"particle", "grid", "rope", "loop", "cloth", "box", "cylinder", "ellipsoid"};
    const Attrs a{*this, n, nullptr};
    const int type = a.keyword("type", {"particle", "grid", "rope", "loop", "cloth", "box", "cylinder", "ellipsoid"}, -1);
    if (type < 0) fail(n, "no type attribute");
    if (type >= 4) {
      fail(n, std::string("composite type '") + kTypes[type] + "' is not generated by abdyn (it generates particle, "
              "grid, rope and loop); load the file MuJoCo's mj_saveLastXML writes after compiling this one, which "
              "spells out the bodies, joints and geoms");
    }
    const std::string prefix = a.text("prefix");
    double count_in[3];
    if (!a.numbers("count", count_in, 3)) fail(n, "no count attribute");
    int count[3];
    double total = 1.0;
    for (int i = 0; i < 3; ++i) {
      if (count_in[i] != std::floor(count_in[i]) || count_in[i] < 1.0 || count_in[i] > 1e5) {
        fail(n, "count: expected three integers from 1 to 100000");
      }
      count[i] = static_cast<int>(count_in[i]);
      total *= count_in[i];
    }
    if (total > 1e6) fail(n, "count: more than a million bodies");
    double spacing = 0.0;
    if (!a.numbers("spacing", &spacing, 1)) fail(n, "no spacing attribute");
    if (spacing < 1e-15) fail(n, "spacing must be positive");
    const Vector3 offset = a.vector3("offset", Vector3::Zero());
    int dim = 0;
    bool singleton = false;
    for (const int c : count) {
      if (c == 1) {
        singleton = true;
      } else {
        ++dim;
        if (singleton) fail(n, "count: singleton counts (1) must come last");
      }
    }
    // Children: the geom and joint kinds shape the dynamics; skin, site, tendon and pin are read.
    MjcfGeom geom;
    geom.where = MjcfWhere{describe(n)};
    CompositeJoint joints[3];  // main, twist, stretch
    std::vector<std::array<int, 2>> pins;
    bool skin = false;
    for (const Node& c : n.children) {
      const std::string k = c.kind();
      const Attrs ca{*this, c, nullptr};
      if (k == "geom") {
        const int t = ca.keyword("type", {"sphere", "capsule", "ellipsoid"}, 0);
        geom.type = t == 0 ? MjcfGeomType::Sphere : t == 1 ? MjcfGeomType::Capsule : MjcfGeomType::Ellipsoid;
        ca.someNumbers("size", geom.size.data(), 3);
        geom.contype = bits(ca, "contype");
        geom.conaffinity = bits(ca, "conaffinity");
        if (ca.has("group")) geom.group = static_cast<int>(ca.number("group", 0.0));
        if (ca.has("mass")) geom.mass = ca.number("mass", 0.0);
        geom.density = ca.number("density", 1000.0);
        if (!geom.size.allFinite() || geom.density < 0.0 || (geom.mass && *geom.mass < 0.0)) fail(c, "negative mass or density");
      } else if (k == "joint") {
        const int kind = ca.keyword("kind", {"main", "twist", "stretch"}, -1);
        if (kind < 0) fail(c, "no kind attribute");
        CompositeJoint& j = joints[kind];
        j.given = true;
        j.stiffness = ca.number("stiffness", 0.0);
        j.damping = ca.number("damping", 0.0);
        j.armature = ca.number("armature", 0.0);
        j.frictionloss = ca.number("frictionloss", 0.0);
      } else if (k == "pin") {
        double xy[2];
        if (!ca.numbers("coord", xy, 2)) fail(c, "no coord attribute");
        pins.push_back({{static_cast<int>(xy[0]), static_cast<int>(xy[1])}});
      } else if (k == "skin") {
        skin = true;
        note("<composite> <skin>: not read (rendering only)");
      } else if (k == "tendon") {
        note("<composite> <tendon>: tendons are not modelled");
      } else if (k == "site") {
        continue;
      } else {
        fail(c, "unknown element <" + k + "> in <composite>");
      }
    }
    // MuJoCo puts the geoms of a skinned composite in group 3 (2D grids among the types generated here).
    if (skin && type == 1 && dim == 2) {
      const XMLElement* g = n.e->FirstChildElement("geom");
      if (g == nullptr || g->Attribute("group") == nullptr) geom.group = 3;
    }
    const auto makeJoint = [&](const std::string& name, MjcfJointType t, const Vector3& pos, const Vector3& axis,
                               const CompositeJoint& values) {
      MjcfJoint j;
      j.where = MjcfWhere{describe(n)};
      j.name = name;
      j.type = t;
      j.pos = pos;
      j.axis = axis;
      j.stiffness = values.stiffness;
      j.damping = values.damping;
      j.armature = values.armature;
      j.frictionloss = values.frictionloss;
      return j;
    };
    const auto addBody = [&](int parent, const std::string& name, const Vector3& pos) {
      MjcfBody b;
      b.where = MjcfWhere{describe(n)};
      b.name = name;
      b.parent = parent;
      b.pose.pos = pos;
      d.bodies.push_back(std::move(b));
      return static_cast<int>(d.bodies.size()) - 1;
    };
    const auto at = [&](int b) -> MjcfBody& { return d.bodies[static_cast<std::size_t>(b)]; };
    const auto str = [](int i) { return std::to_string(i); };
    if (type == 0) {  // particle: unnamed bodies with three slide joints and a sphere each
      geom.type = MjcfGeomType::Sphere;
      for (int ix = 0; ix < count[0]; ++ix) {
        for (int iy = 0; iy < count[1]; ++iy) {
          for (int iz = 0; iz < count[2]; ++iz) {
            const int b = addBody(body, "", offset + spacing * Vector3(ix - 0.5 * count[0], iy - 0.5 * count[1], iz - 0.5 * count[2]));
            for (int i = 0; i < 3; ++i) {
              at(b).joints.push_back(makeJoint("", MjcfJointType::Slide, Vector3::Zero(), Vector3::Unit(i), joints[0]));
            }
            at(b).geoms.push_back(geom);
          }
        }
      }
      return;
    }
    if (type == 1) {  // grid: bodies B<x>_<y> with a sphere and a site, three slide joints unless pinned
      if (dim > 2) fail(n, "a grid is one- or two-dimensional");
      geom.type = MjcfGeomType::Sphere;
      for (int ix = 0; ix < count[0]; ++ix) {
        for (int iy = 0; iy < count[1]; ++iy) {
          const std::string xy = str(ix) + "_" + str(iy);
          const int b = addBody(body, prefix + "B" + xy,
                                Vector3(offset[0] + spacing * (ix - 0.5 * count[0]), offset[1] + spacing * (iy - 0.5 * count[1]), offset[2]));
          at(b).geoms.push_back(geom);
          at(b).geoms.back().name = prefix + "G" + xy;
          MjcfSite site;
          site.where = MjcfWhere{describe(n)};
          site.name = prefix + "S" + xy;
          at(b).sites.push_back(site);
          if (std::find(pins.begin(), pins.end(), std::array<int, 2>{{ix, iy}}) != pins.end()) continue;
          for (int i = 0; i < 3; ++i) {
            at(b).joints.push_back(makeJoint(prefix + "J" + str(i) + "_" + xy, MjcfJointType::Slide, Vector3::Zero(),
                                             Vector3::Unit(i), joints[0]));
          }
        }
      }
      note("<composite type=\"grid\">: its tendons and their equalities are not modelled");
      return;
    }
    // rope and loop: a chain of bodies B<x> from the composite's own body, two hinges each (twist and
    // stretch joints when asked), a geom along x; a loop is closed by a connect equality.
    if (dim != 1) fail(n, "a rope or loop is one-dimensional");
    const std::string root_prefix = prefix + "B";
    const std::string& root_name = at(body).name;
    int ox = -1;
    if (body == 0 || root_name.compare(0, root_prefix.size(), root_prefix) != 0 ||
        std::sscanf(root_name.c_str() + root_prefix.size(), "%d", &ox) != 1 || ox < 0 || ox >= count[0]) {
      fail(n, "the body holding a rope or loop must be named " + root_prefix + "<x>, x from 0 to " + str(count[0] - 1));
    }
    const double alpha = 2 * M_PI / count[0];
    const double radius = 0.5 * spacing * std::sin(M_PI - alpha) / std::sin(0.5 * alpha);
    const auto ropeBody = [&](int parent, int ix, int ix1) {
      const double dx = spacing * (ix1 - ix);
      int b = parent;
      if (ix != ix1) {
        b = addBody(parent, prefix + "B" + str(ix1), Vector3(dx, 0.0, 0.0));
        if (type == 3) {
          const double sign = ix1 > ix ? 1.0 : -1.0;
          at(b).pose.pos = Vector3(sign * radius * std::cos(0.5 * alpha), radius * std::sin(0.5 * alpha), 0.0);
          at(b).pose.quat = Vector4(std::cos(0.5 * alpha), 0.0, 0.0, sign * std::sin(0.5 * alpha));
        }
      }
      MjcfGeom g = geom;
      g.name = prefix + "G" + str(ix1);
      g.pose.quat = Vector4(std::sqrt(0.5), 0.0, std::sqrt(0.5), 0.0);
      at(b).geoms.push_back(g);
      if (ix == ix1) return b;
      const Vector3 anchor(-0.5 * dx, 0.0, 0.0);
      for (int i = 0; i < 2; ++i) {
        at(b).joints.push_back(makeJoint(prefix + "J" + str(i) + "_" + str(ix1), MjcfJointType::Hinge, anchor,
                                         Vector3::Unit(i + 1), joints[0]));
      }
      const std::pair<const char*, MjcfJointType> extra[2] = {{"JT", MjcfJointType::Hinge}, {"JS", MjcfJointType::Slide}};
      for (int kind = 1; kind < 3; ++kind) {
        if (!joints[kind].given) continue;
        const std::string name = prefix + extra[kind - 1].first + str(ix1);
        at(b).joints.push_back(makeJoint(name, extra[kind - 1].second, anchor, Vector3::UnitX(), joints[kind]));
        MjcfEquality e;  // holds the joint at its reference (not modelled: a joint equality without joint2)
        e.where = MjcfWhere{describe(n)};
        e.type = MjcfEqualityType::Joint;
        e.joint1 = name;
        d.equalities.push_back(std::move(e));
      }
      return b;
    };
    ropeBody(body, ox, ox);
    int parent = body;
    for (int ix = ox; ix < count[0] - 1; ++ix) parent = ropeBody(parent, ix, ix + 1);
    parent = body;
    for (int ix = ox; ix > 0; --ix) parent = ropeBody(parent, ix, ix - 1);
    if (type == 3) {
      MjcfEquality e;
      e.where = MjcfWhere{describe(n)};
      e.type = MjcfEqualityType::Connect;
      e.body1 = prefix + "B0";
      e.body2 = prefix + "B" + str(count[0] - 1);
      e.anchor = Vector3(-0.5 * spacing, 0.0, 0.0);
      d.equalities.push_back(e);
      MjcfExclude x;
      x.where = e.where;
      x.body1 = e.body1;
      x.body2 = e.body2;
      d.excludes.push_back(std::move(x));
    }
  }

  MjcfJoint joint(const Node& n, const std::string& cls, bool free) {
    // <freejoint> takes no defaults.
    const Attrs a = free ? Attrs{*this, n, nullptr} : attrs(n, cls, "joint");
    MjcfJoint j;
    j.where = MjcfWhere{describe(n)};
    j.name = a.text("name");
    if (free) {
      j.type = MjcfJointType::Free;
      return j;
    }
    j.type = static_cast<MjcfJointType>(3 - a.keyword("type", {"free", "ball", "slide", "hinge"}, 3));
    j.pos = a.vector3("pos", Vector3::Zero());
    j.axis = a.vector3("axis", Vector3::UnitZ());
    if (j.type == MjcfJointType::Hinge || j.type == MjcfJointType::Slide) {
      if (j.axis.squaredNorm() < kEps) fail(n, "the axis is too small to normalise");
      j.axis.normalize();
    }
    if (j.type == MjcfJointType::Free) j.pos.setZero();
    const double to_radians = j.type == MjcfJointType::Hinge && compiler_.degree ? M_PI / 180.0 : 1.0;
    j.ref = a.number("ref", 0.0) * to_radians;
    j.springref = a.number("springref", 0.0) * to_radians;
    j.stiffness = a.number("stiffness", 0.0);
    j.damping = a.number("damping", 0.0);
    j.armature = a.number("armature", 0.0);
    j.frictionloss = a.number("frictionloss", 0.0);
    double sd[2] = {0.0, 0.0};
    if (a.numbers("springdamper", sd, 2) && (sd[0] != 0.0 || sd[1] != 0.0)) {
      j.springdamper = true;
      note("<joint springdamper>: not modelled (give stiffness and damping instead)");
    }
    std::array<double, 2> range{{0.0, 0.0}};
    const bool has_range = a.numbers("range", range.data(), 2);
    const int limited = a.keyword("limited", {"false", "true", "auto"}, 2);
    // MuJoCo 2.2.2 refuses a range without limited unless autolimits is set; later versions take the
    // range as the limits, and so does abdyn.
    if (limited == 1 || (limited == 2 && has_range)) {
      const double to_radians_range =
          (j.type == MjcfJointType::Hinge || j.type == MjcfJointType::Ball) && compiler_.degree ? M_PI / 180.0 : 1.0;
      j.range = {{range[0] * to_radians_range, range[1] * to_radians_range}};
    }
    return j;
  }

  MjcfGeom geom(const Node& n, const std::string& cls) {
    const Attrs a = attrs(n, cls, "geom");
    MjcfGeom g;
    g.where = MjcfWhere{describe(n)};
    g.name = a.text("name");
    g.type = static_cast<MjcfGeomType>(
        a.keyword("type", {"plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh"}, 2));
    a.someNumbers("size", g.size.data(), 3);
    if (a.has("mass")) g.mass = a.number("mass", 0.0);
    g.density = a.number("density", 1000.0);
    g.group = static_cast<int>(a.number("group", 0.0));
    g.mesh = a.text("mesh");
    g.contype = bits(a, "contype");
    g.conaffinity = bits(a, "conaffinity");
    g.shellinertia = a.boolean("shellinertia", 0) == 1;
    if (!g.mesh.empty() && g.type != MjcfGeomType::Mesh && a.get("type") == nullptr) g.type = MjcfGeomType::Mesh;
    double ft[6];
    if (a.numbers("fromto", ft, 6)) {
      if (g.type != MjcfGeomType::Capsule && g.type != MjcfGeomType::Cylinder && g.type != MjcfGeomType::Ellipsoid &&
          g.type != MjcfGeomType::Box) {
        fail(n, "fromto needs a capsule, cylinder, ellipsoid or box");
      }
      if (a.vector3("pos", Vector3::Zero()) != Vector3::Zero()) fail(n, "both pos and fromto are given");
      const Vector3 from(ft[0], ft[1], ft[2]), to(ft[3], ft[4], ft[5]);
      const Vector3 dir = from - to;
      const double half = dir.norm() / 2;
      if (half < 1e-15) fail(n, "fromto points are too close");  // MuJoCo's mjEPS on the half length
      g.size[1] = half;
      if (g.type == MjcfGeomType::Ellipsoid || g.type == MjcfGeomType::Box) {
        g.size[2] = half;
        g.size[1] = g.size[0];
      }
      g.pose.pos = (from + to) / 2;
      g.pose.quat = zToQuat(dir / (2 * half));
    } else {
      g.pose = pose(a);
    }
    if (!g.size.allFinite() || g.density < 0.0 || (g.mass && *g.mass < 0.0)) {
      fail(n, "negative mass or density");
    }
    return g;
  }

  // A collision bit mask (contype, conaffinity): an int of MuJoCo's, not negative here; 1 when not given.
  static std::uint32_t bits(const Attrs& a, const char* name) {
    const double x = a.number(name, 1.0);
    if (x != std::floor(x) || x < 0.0 || x > 2147483647.0) {
      a.bad(name, a.get(name), "expected an integer from 0 to 2147483647 (a bit mask)", "");
    }
    return static_cast<std::uint32_t>(x);
  }

  void equality(const Node& n, MjcfDocument& d) {
    const std::string k = n.kind();
    if (k != "connect" && k != "weld" && k != "joint") {
      note("<equality> <" + k + ">: not modelled");
      return;
    }
    const Attrs a = attrs(n, classOf(n, main_), "equality");
    MjcfEquality e;
    e.where = MjcfWhere{describe(n)};
    e.name = a.text("name");
    e.active = a.boolean("active", 1) == 1;
    if (k == "joint") {
      e.type = MjcfEqualityType::Joint;
      e.joint1 = a.text("joint1");
      e.joint2 = a.text("joint2");
      if (e.joint1.empty()) fail(n, "no joint1 attribute");
      a.numbers("polycoef", e.polycoef.data(), 5);
    } else {
      e.type = k == "connect" ? MjcfEqualityType::Connect : MjcfEqualityType::Weld;
      e.body1 = a.text("body1");
      e.body2 = a.text("body2");
      if (e.body1.empty()) fail(n, "no body1 attribute");
      if (k == "connect" && !a.numbers("anchor", e.anchor.data(), 3)) fail(n, "no anchor attribute");
      if (k == "weld") {
        a.numbers("anchor", e.anchor.data(), 3);
        double rp[7];
        if (a.numbers("relpose", rp, 7) && (rp[3] != 0.0 || rp[4] != 0.0 || rp[5] != 0.0 || rp[6] != 0.0)) {
          MjcfPose p;
          p.pos = Vector3(rp[0], rp[1], rp[2]);
          p.quat = Vector4(rp[3], rp[4], rp[5], rp[6]).normalized();
          e.relpose = p;
        }
      }
    }
    d.equalities.push_back(std::move(e));
  }

  void actuator(const Node& n, MjcfDocument& d) {
    const std::string k = n.kind();
    if (!isActuator(k)) fail(n, "unknown actuator element <" + k + ">");
    const Attrs a = attrs(n, classOf(n, main_), "actuator");
    MjcfActuator act;
    act.where = MjcfWhere{describe(n)};
    act.name = a.text("name");
    act.kind = k;
    act.joint = a.text("joint", a.text("jointinparent"));
    for (const char* t : {"tendon", "site", "body", "cranksite"}) {
      if (a.has(t)) act.transmission = t;
    }
    double gear[6] = {1.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    a.someNumbers("gear", gear, 6);
    act.gear = gear[0];
    std::array<double, 2> range{{0.0, 0.0}};
    const bool has_range = a.numbers("ctrlrange", range.data(), 2);
    const int limited = a.keyword("ctrllimited", {"false", "true", "auto"}, 2);
    if (limited == 1 || (limited == 2 && has_range)) act.ctrlrange = range;
    d.actuators.push_back(std::move(act));
  }

  void contact(const Node& n, MjcfDocument& d) {
    if (n.kind() == "pair") {
      note("<contact> <pair>: explicit contact pairs are not modelled");
      return;
    }
    if (n.kind() != "exclude") fail(n, "unknown element in <contact>");
    const Attrs a{*this, n, nullptr};
    MjcfExclude e;
    e.where = MjcfWhere{describe(n)};
    e.body1 = a.text("body1");
    e.body2 = a.text("body2");
    if (e.body1.empty() || e.body2.empty()) fail(n, "an exclude needs body1 and body2");
    d.excludes.push_back(std::move(e));
  }

  // A list of any length of numbers (vertex and face data); empty when the attribute is missing.
  std::vector<double> numberList(const Node& n, const char* name) const {
    std::vector<double> out;
    const char* v = n.attribute(name);
    if (v == nullptr) return out;
    const int words = countWords(v);
    if (words > 48'000'000) fail(n, std::string(name) + ": more than 48 million numbers");  // MeshLimits' 16 million vertices
    out.resize(static_cast<std::size_t>(words));
    const std::string why = parseNumbers(v, out.data(), static_cast<int>(out.size()));
    if (!why.empty()) fail(n, std::string(name) + ": " + why);
    return out;
  }

  void key(const Node& n, MjcfDocument& d) {
    if (n.kind() != "key") fail(n, "unknown element in <keyframe>");
    const Attrs a{*this, n, nullptr};
    MjcfKey k;
    k.where = MjcfWhere{describe(n)};
    k.name = a.text("name");
    if (const char* q = n.attribute("qpos")) {
      const int words = countWords(q);
      k.qpos.resize(static_cast<std::size_t>(words));
      const std::string why = parseNumbers(q, k.qpos.data(), words);
      if (!why.empty()) fail(n, "qpos: " + why);
    }
    d.keys.push_back(std::move(k));
  }

  std::string source_, base_dir_;
  MjcfCompiler compiler_;
  std::vector<std::unique_ptr<tinyxml2::XMLDocument>> docs_;
  std::deque<std::string> files_;  // stable addresses for Node::file
  std::uint64_t elements_ = 0;
  int included_ = 0;
  std::map<std::string, DefaultClass> defaults_;
  std::string main_ = "main";  // the name of the top-level default class
  std::set<std::string> noted_;
  std::vector<std::string> notes_;
};

}  // namespace mjcf_document

MjcfDocument readMjcfDocument(const std::string& xml, const std::string& source, const std::string& base_dir) {
  return mjcf_document::Reader(source, base_dir).read(xml);
}

}  // namespace abdyn::internal
