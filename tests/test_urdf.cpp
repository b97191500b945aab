#define BOOST_TEST_MODULE urdf
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <locale>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>


#include "abdyn/error.hpp"
#include "abdyn/io/urdf.hpp"
#include "abdyn/logging.hpp"
#include "captured_log.hpp"
#include "test_helpers.hpp"

using namespace abdyn;

namespace {

const double kInf = std::numeric_limits<double>::infinity();

// ---------------------------------------------------------------------------------------------------
// An independent reading of a URDF file, with regular expressions rather than urdfdom, for the
// numbers the loader must reproduce: links, joints, masses and shapes.

struct FileJoint {
  std::string name, type, parent, child;
};

struct FileFacts {
  std::string robot;
  std::vector<std::string> links;
  std::map<std::string, double> mass;  // links with <inertial>
  std::vector<FileJoint> joints;
  int geometries = 0;
  std::string root;
  std::set<std::string> welded;  // the root and the links fixed to it
};

std::string attribute(const std::string& tag, const std::string& name) {
  std::smatch m;
  const std::regex re("\\b" + name + "\\s*=\\s*\"([^\"]*)\"");
  return std::regex_search(tag, m, re) ? m[1].str() : std::string();
}

// Each element <tag ...>...</tag> or <tag .../>: its opening tag and its body.
std::vector<std::pair<std::string, std::string>> elements(const std::string& text, const std::string& tag) {
  std::vector<std::pair<std::string, std::string>> out;
  const std::regex open("<" + tag + "\\b[^>]*>");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), open); it != std::sregex_iterator(); ++it) {
    const std::string head = it->str();
    std::string body;
    if (head[head.size() - 2] != '/') {
      const std::size_t start = it->position() + head.size();
      body = text.substr(start, text.find("</" + tag + ">", start) - start);
    }
    out.emplace_back(head, body);
  }
  return out;
}

FileFacts readFacts(const std::string& path) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text = std::regex_replace(text, std::regex("<!--[\\s\\S]*?-->"), "");
  text = std::regex_replace(text, std::regex("<(transmission|gazebo)\\b[\\s\\S]*?</\\1>"), "");
  FileFacts f;
  f.robot = attribute(elements(text, "robot").at(0).first, "name");
  for (const auto& [head, body] : elements(text, "link")) {
    const std::string name = attribute(head, "name");
    f.links.push_back(name);
    std::smatch m;
    if (std::regex_search(body, m, std::regex("<mass\\s+value\\s*=\\s*\"([^\"]*)\""))) f.mass[name] = std::stod(m[1]);
    f.geometries += static_cast<int>(elements(body, "visual").size() + elements(body, "collision").size());
  }
  std::set<std::string> children;
  for (const auto& [head, body] : elements(text, "joint")) {
    FileJoint j{attribute(head, "name"), attribute(head, "type"), attribute(elements(body, "parent").at(0).first, "link"),
                attribute(elements(body, "child").at(0).first, "link")};
    children.insert(j.child);
    f.joints.push_back(j);
  }
  for (const std::string& l : f.links) {
    if (!children.count(l)) f.root = l;
  }
  f.welded.insert(f.root);
  for (bool grew = true; grew;) {
    grew = false;
    for (const FileJoint& j : f.joints) {
      if (j.type == "fixed" && f.welded.count(j.parent) && !f.welded.count(j.child)) grew = f.welded.insert(j.child).second;
    }
  }
  return f;
}

std::vector<std::string> bundledModels() {
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(ABDYN_SOURCE_DIR) + "/models")) {
    if (entry.path().extension() == ".urdf") paths.push_back(entry.path().string());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

// ---------------------------------------------------------------------------------------------------
// Error checks (test_helpers.hpp): the call must throw abdyn::Error whose message starts with `source` +
// ": " and contains every fragment.
using abdyn::test::checkError;

void checkStringError(const std::string& xml, const std::vector<std::string>& fragments, const UrdfOptions& options = {}) {
  checkError([&] { loadUrdfString(xml, options); }, "<string>", fragments);
}

// A two-link pendulum with placeholders: the tests below break one element at a time.
std::string pendulum(const std::string& joint_extra = "<axis xyz=\"0 1 0\"/>",
                     const std::string& limit = R"(<limit lower="-1" upper="1" effort="10" velocity="5"/>)",
                     const std::string& inertial =
                         R"(<inertial><origin xyz="0 0 -1"/><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>)",
                     const std::string& origin = R"(<origin xyz="0 0 0" rpy="0 0 0"/>)",
                     const std::string& type = "revolute") {
  return R"(<robot name="pendulum"><link name="base"/>
  <joint name="hinge" type=")" + type + R"("><parent link="base"/><child link="pole"/>)" + origin + joint_extra + limit +
         R"(</joint><link name="pole">)" + inertial + R"(</link></robot>)";
}

std::string inertialWith(const std::string& mass, const std::string& ixx, const std::string& iyy, const std::string& izz,
                         const std::string& ixy = "0", const std::string& origin = "<origin xyz=\"0 0 -1\"/>") {
  return "<inertial>" + origin + "<mass value=\"" + mass + "\"/><inertia ixx=\"" + ixx + "\" ixy=\"" + ixy +
         "\" ixz=\"0\" iyy=\"" + iyy + "\" iyz=\"0\" izz=\"" + izz + "\"/></inertial>";
}

// Rotations about the coordinate axes, written out here rather than taken from the library.
Matrix3 Rx(double a) {
  Matrix3 R;
  R << 1, 0, 0, 0, std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a);
  return R;
}
Matrix3 Ry(double a) {
  Matrix3 R;
  R << std::cos(a), 0, std::sin(a), 0, 1, 0, -std::sin(a), 0, std::cos(a);
  return R;
}
Matrix3 Rz(double a) {
  Matrix3 R;
  R << std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a), 0, 0, 0, 1;
  return R;
}

using testing::CapturedLog;

}  // namespace

// ---------------------------------------------------------------------------------------------------
// Files.

BOOST_AUTO_TEST_CASE(missing_file) {
  checkError([] { loadUrdf("/nonexistent/robot.urdf"); }, "/nonexistent/robot.urdf", {"cannot read", "no such file"});
}

BOOST_AUTO_TEST_CASE(unreadable_file) {
  const std::string dir = std::string(ABDYN_SOURCE_DIR) + "/models";
  checkError([&] { loadUrdf(dir); }, dir, {"cannot read", "directory"});

  // Permissions do not stop root from reading, so the no-permission case runs only for other users.
  if (geteuid() == 0) {
    BOOST_TEST_MESSAGE("running as root: skipping the file-without-read-permission case");
    return;
  }
  const std::string path = abdyn::test::temporaryPath("abdyn_test_unreadable.urdf");
  std::ofstream(path) << pendulum();
  chmod(path.c_str(), 0);
  checkError([&] { loadUrdf(path); }, path, {"cannot read", "Permission denied"});
  std::filesystem::remove(path);
}

BOOST_AUTO_TEST_CASE(malformed_xml) {
  checkStringError(R"(<robot name="x"><link name="a"></robot>)", {"malformed XML"});
  checkStringError("", {"malformed XML"});
  // The file variant names the path.
  const std::string path = abdyn::test::temporaryPath("abdyn_test_malformed.urdf");
  std::ofstream(path) << "<robot name=\"x\"><link name=\"a\">";
  checkError([&] { loadUrdf(path); }, path, {"malformed XML"});
  std::filesystem::remove(path);
}

BOOST_AUTO_TEST_CASE(no_robot_element) { checkStringError(R"(<model name="x"><link name="a"/></model>)", {"no <robot> element"}); }

// ---------------------------------------------------------------------------------------------------
// Structure.

BOOST_AUTO_TEST_CASE(cycle_without_root) {
  checkStringError(R"(<robot name="r"><link name="a"/><link name="b"/>
    <joint name="ab" type="fixed"><parent link="a"/><child link="b"/></joint>
    <joint name="ba" type="fixed"><parent link="b"/><child link="a"/></joint></robot>)",
                   {"no root link", "cycle"});
}

BOOST_AUTO_TEST_CASE(cycle_below_root) {
  // The root is found; link 'a' then has two parents.
  checkStringError(R"(<robot name="r"><link name="root"/><link name="a"/><link name="b"/>
    <joint name="ra" type="fixed"><parent link="root"/><child link="a"/></joint>
    <joint name="ab" type="fixed"><parent link="a"/><child link="b"/></joint>
    <joint name="ba" type="fixed"><parent link="b"/><child link="a"/></joint></robot>)",
                   {"link 'a' is the child of two joints", "'ba'", "'ra'"});
  // A cycle beside the root: every link has one parent, but 'a' and 'b' are not reached.
  checkStringError(R"(<robot name="r"><link name="root"/><link name="a"/><link name="b"/>
    <joint name="ab" type="fixed"><parent link="a"/><child link="b"/></joint>
    <joint name="ba" type="fixed"><parent link="b"/><child link="a"/></joint></robot>)",
                   {"links 'a', 'b' are not connected to the root link 'root'", "cycle"});
}

BOOST_AUTO_TEST_CASE(several_roots) {
  checkStringError(R"(<robot name="r"><link name="a"/><link name="b"/></robot>)", {"several root links", "'a'", "'b'"});
}

BOOST_AUTO_TEST_CASE(joint_refers_to_missing_link) {
  checkStringError(R"(<robot name="r"><link name="a"/>
    <joint name="j" type="fixed"><parent link="a"/><child link="ghost"/></joint></robot>)",
                   {"joint 'j' refers to child link 'ghost', which does not exist"});
  checkStringError(R"(<robot name="r"><link name="a"/>
    <joint name="j" type="fixed"><parent link="ghost"/><child link="a"/></joint></robot>)",
                   {"joint 'j' refers to parent link 'ghost', which does not exist"});
}

BOOST_AUTO_TEST_CASE(unknown_joint_type) {
  checkStringError(pendulum("<axis xyz=\"0 1 0\"/>", "", inertialWith("1", "0.01", "0.01", "0.01"), "", "hinged"),
                   {"joint 'hinge' has unknown type 'hinged'"});
}

BOOST_AUTO_TEST_CASE(link_named_world_that_is_not_the_root) {
  checkStringError(R"(<robot name="r"><link name="base"/><link name="world"/>
    <joint name="j" type="fixed"><parent link="base"/><child link="world"/></joint></robot>)",
                   {"link 'world' is not the root link"});
}

// ---------------------------------------------------------------------------------------------------
// Inertia.

BOOST_AUTO_TEST_CASE(negative_mass) {
  checkStringError(pendulum("<axis xyz=\"0 1 0\"/>", R"(<limit lower="-1" upper="1" effort="10" velocity="5"/>)",
                            inertialWith("-1", "0.01", "0.01", "0.01")),
                   {"link 'pole'", "negative mass -1"});
  // accept_invalid_inertia does not cover negative masses.
  UrdfOptions accept;
  accept.accept_invalid_inertia = true;
  checkStringError(pendulum("<axis xyz=\"0 1 0\"/>", R"(<limit lower="-1" upper="1" effort="10" velocity="5"/>)",
                            inertialWith("-1", "0.01", "0.01", "0.01")),
                   {"link 'pole'", "negative mass"}, accept);
}

// A massless subtree makes the mass matrix singular: the file loads as a kinematic model naming the
// massless bodies (strict mode refuses it; test_urdf_rules.cpp has the rest of the rule).
BOOST_AUTO_TEST_CASE(massless_subtree) {
  const Model pole = loadUrdfString(pendulum("<axis xyz=\"0 1 0\"/>", R"(<limit lower="-1" upper="1" effort="10" velocity="5"/>)", ""));
  BOOST_TEST(!pole.hasDynamics());
  BOOST_TEST(pole.masslessBodies() == std::vector<int>{1});
  // The same with the massless link behind a fixed joint, and with a floating base over massless links.
  const Model welded = loadUrdfString(R"(<robot name="r"><link name="base"/>
    <joint name="hinge" type="continuous"><parent link="base"/><child link="a"/></joint><link name="a"/>
    <joint name="weld" type="fixed"><parent link="a"/><child link="b"/></joint><link name="b"/></robot>)");
  BOOST_TEST(!welded.hasDynamics());
  BOOST_TEST(welded.bodyName(welded.masslessBodies().front()) == "a");
  UrdfOptions floating;
  floating.floating_base = true;
  BOOST_TEST(!loadUrdfString(R"(<robot name="r"><link name="base"/></robot>)", floating).hasDynamics());
  UrdfOptions strict;
  strict.strict = true;
  checkStringError(pendulum("<axis xyz=\"0 1 0\"/>", R"(<limit lower="-1" upper="1" effort="10" velocity="5"/>)", ""),
                   {"no link has an <inertial>", "mass matrix is singular", "'pole'", "bound_mass", "strict"}, strict);
}

BOOST_AUTO_TEST_CASE(inertia_not_positive_definite) {
  const std::string limit = R"(<limit lower="-1" upper="1" effort="10" velocity="5"/>)";
  checkStringError(pendulum("", limit, inertialWith("1", "-0.01", "0.01", "0.01")),
                   {"body 'pole'", "invalid inertia", "not positive semi-definite", "link 'pole'"});
  // Off-diagonal terms too large for the diagonal.
  checkStringError(pendulum("", limit, inertialWith("1", "0.01", "0.01", "0.01", "0.02")),
                   {"body 'pole'", "not positive semi-definite"});
  // A point mass (zero inertia) one metre from the hinge is a valid pendulum (test_urdf_real.cpp has more).
  BOOST_TEST(loadUrdfString(pendulum("", limit, inertialWith("1", "0", "0", "0"))).inertia(1).mass() == 1.0);
  // A massless link may have zero inertia: the model loads as long as something else has mass.
  const std::string xml = R"(<robot name="r"><link name="base"/>
    <joint name="hinge" type="continuous"><parent link="base"/><child link="a"/></joint>
    <link name="a"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
    <joint name="weld" type="fixed"><parent link="a"/><child link="b"/></joint>
    <link name="b"><inertial><mass value="0"/><inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial></link></robot>)";
  BOOST_TEST(loadUrdfString(xml).nbodies() == 2);
}

BOOST_AUTO_TEST_CASE(inertia_violates_triangle_inequality) {
  // Loaded with a warning by default (test_urdf_real.cpp), refused in strict mode.
  UrdfOptions strict;
  strict.strict = true;
  checkStringError(pendulum("", R"(<limit lower="-1" upper="1" effort="10" velocity="5"/>)",
                            inertialWith("1", "0.01", "0.01", "0.05")),
                   {"link 'pole'", "triangle inequality", "strict"}, strict);
}

BOOST_AUTO_TEST_CASE(accept_invalid_inertia_loads_with_a_warning) {
  UrdfOptions accept;
  accept.accept_invalid_inertia = true;
  const std::string limit = R"(<limit lower="-1" upper="1" effort="10" velocity="5"/>)";
  {
    CapturedLog log;
    const Model m = loadUrdfString(pendulum("", limit, inertialWith("1", "0.01", "0.01", "0.05")), accept);
    BOOST_TEST(m.inertia(1).inertiaAboutCom()(2, 2) == 0.05);
    const std::string text = log.text.str();
    BOOST_TEST(text.find("link 'pole'") != std::string::npos, text);
    BOOST_TEST(text.find("triangle inequality") != std::string::npos, text);
  }
  {
    CapturedLog log;
    const Model m = loadUrdfString(pendulum("", limit, inertialWith("2", "-0.01", "0.01", "0.01")), accept);
    BOOST_TEST(m.inertia(1).mass() == 2.0);
    BOOST_TEST(m.inertia(1).inertiaAboutCom()(0, 0) == -0.01);
    const std::string text = log.text.str();
    BOOST_TEST(text.find("link 'pole'") != std::string::npos, text);
    BOOST_TEST(text.find("body 'pole'") != std::string::npos, text);
    BOOST_TEST(text.find("not positive semi-definite") != std::string::npos, text);
  }
  // Without the option the same file is rejected.
  checkStringError(pendulum("", limit, inertialWith("2", "-0.01", "0.01", "0.01")),
                   {"link 'pole'", "not positive semi-definite"});
}

// ---------------------------------------------------------------------------------------------------
// Numbers.

BOOST_AUTO_TEST_CASE(non_finite_numbers) {
  const std::string axis = "<axis xyz=\"0 1 0\"/>";
  const std::string limit = R"(<limit lower="-1" upper="1" effort="10" velocity="5"/>)";
  const std::string inertial = inertialWith("1", "0.01", "0.01", "0.01");
  for (const std::string bad : {"nan", "inf", "-inf", "NaN", "1e400", "infinity"}) {
    BOOST_TEST_CONTEXT("value " << bad) {
      // Joint origin, axis, limits, dynamics, mimic.
      checkStringError(pendulum(axis, limit, inertial, "<origin xyz=\"0 " + bad + " 0\"/>"), {"joint 'hinge'"});
      checkStringError(pendulum(axis, limit, inertial, "<origin rpy=\"0 0 " + bad + "\"/>"), {"joint 'hinge'"});
      checkStringError(pendulum("<axis xyz=\"0 " + bad + " 0\"/>", limit, inertial), {"joint 'hinge'"});
      checkStringError(pendulum(axis, "<limit lower=\"" + bad + "\" upper=\"1\" effort=\"1\" velocity=\"1\"/>", inertial),
                       {"joint 'hinge'"});
      checkStringError(pendulum(axis, "<limit lower=\"-1\" upper=\"1\" effort=\"" + bad + "\" velocity=\"1\"/>", inertial),
                       {"joint 'hinge'"});
      checkStringError(pendulum(axis + "<dynamics damping=\"" + bad + "\"/>", limit, inertial), {"joint 'hinge'"});
      // Link mass, inertia, inertial origin.
      checkStringError(pendulum(axis, limit, inertialWith(bad, "0.01", "0.01", "0.01")), {"link 'pole'"});
      checkStringError(pendulum(axis, limit, inertialWith("1", bad, "0.01", "0.01")), {"link 'pole'"});
      checkStringError(pendulum(axis, limit, inertialWith("1", "0.01", "0.01", "0.01", "0", "<origin xyz=\"" + bad + " 0 0\"/>")),
                       {"link 'pole'"});
      // Geometry: dropped with a warning (test_urdf_real.cpp), refused in strict mode.
      UrdfOptions strict;
      strict.strict = true;
      checkStringError(R"(<robot name="r"><link name="base"><visual><geometry><sphere radius=")" + bad +
                           R"("/></geometry></visual></link></robot>)",
                       {"link 'base'"}, strict);
    }
  }
  // Numbers that are finite one by one but overflow once composed.
  checkStringError(R"(<robot name="r"><link name="base"/>
    <joint name="a" type="fixed"><parent link="base"/><child link="l1"/><origin xyz="1e308 0 0"/></joint><link name="l1"/>
    <joint name="b" type="continuous"><parent link="l1"/><child link="l2"/><origin xyz="1e308 0 0"/></joint>
    <link name="l2"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link></robot>)",
                   {"joint 'b'", "overflows"});
}

BOOST_AUTO_TEST_CASE(zero_length_axis) {
  checkStringError(pendulum("<axis xyz=\"0 0 0\"/>"), {"joint 'hinge' has a zero-length axis"});
}

// Inverted position limits cannot be obeyed: by default they are dropped with a warning (the effort and
// velocity limits stay), in strict mode the file is refused.
BOOST_AUTO_TEST_CASE(lower_limit_above_upper) {
  const std::string xml = pendulum("<axis xyz=\"0 1 0\"/>", R"(<limit lower="1" upper="-1" effort="10" velocity="5"/>)");
  CapturedLog log;
  const Model model = loadUrdfString(xml);
  const std::string text = log.text.str();
  BOOST_TEST(text.find("joint 'hinge': lower limit 1 is above upper limit -1: position limits ignored") != std::string::npos, text);
  BOOST_TEST(model.lowerPositionLimit()[0] == -std::numeric_limits<double>::infinity());
  BOOST_TEST(model.upperPositionLimit()[0] == std::numeric_limits<double>::infinity());
  BOOST_TEST(model.effortLimit()[0] == 10.0);
  BOOST_TEST(model.velocityLimit()[0] == 5.0);
  UrdfOptions strict;
  strict.strict = true;
  checkStringError(xml, {"joint 'hinge': lower limit 1 is above upper limit -1", "strict"}, strict);
}

BOOST_AUTO_TEST_CASE(negative_limits_and_dynamics) {
  const std::string axis = "<axis xyz=\"0 1 0\"/>";
  // Negative limits are "not given" by default (test_urdf_real.cpp), refused in strict mode.
  UrdfOptions strict;
  strict.strict = true;
  checkStringError(pendulum(axis, R"(<limit lower="-1" upper="1" effort="-10" velocity="5"/>)"),
                   {"joint 'hinge': negative effort limit -10"}, strict);
  checkStringError(pendulum(axis, R"(<limit lower="-1" upper="1" effort="10" velocity="-5"/>)"),
                   {"joint 'hinge': negative velocity limit -5"}, strict);
  checkStringError(pendulum(axis + R"(<dynamics damping="-0.5"/>)"), {"joint 'hinge': negative damping -0.5"});
  checkStringError(pendulum(axis + R"(<dynamics friction="-0.5"/>)"), {"joint 'hinge': negative friction -0.5"});
}

BOOST_AUTO_TEST_CASE(non_unit_axis_is_normalised_with_a_warning) {
  CapturedLog log;
  const Model m = loadUrdfString(pendulum("<axis xyz=\"0 2 0\"/>"));
  BOOST_TEST((m.joint(1).type == JointType::RevoluteY));
  BOOST_TEST(log.text.str().find("joint 'hinge'") != std::string::npos, log.text.str());
}

// A <visual> naming a material the file does not define: a warning (abdyn reads no material), as
// urdfdom gave one.
BOOST_AUTO_TEST_CASE(undefined_material_is_a_warning) {
  CapturedLog log;
  const Model m = loadUrdfString(
      R"(<robot name="x"><link name="a"><visual><geometry><box size="1 1 1"/></geometry><material name="paint"/></visual></link></robot>)");
  BOOST_TEST(m.geometries().size() == 1u);
  BOOST_TEST(log.text.str().find("<string>: link 'a': visual 'a/visual0': material 'paint' is defined nowhere in the file") !=
                 std::string::npos,
             log.text.str());
}

// What URDF requires of the elements that matter: each missing piece refuses the file (or, where urdfdom
// reads a default, strict mode does), naming the joint or link, the element and the attribute.
BOOST_AUTO_TEST_CASE(required_elements_and_attributes) {
  const std::string inertial = inertialWith("1", "0.01", "0.01", "0.01");
  // A joint without <limit>, or a <limit> without effort or velocity, loads with a warning
  // (test_urdf_rules.cpp); strict mode refuses it.
  UrdfOptions strict;
  strict.strict = true;
  checkStringError(pendulum("<axis xyz=\"0 1 0\"/>", ""), {"joint 'hinge'", "revolute joint without <limit>"}, strict);
  checkStringError(pendulum("<axis xyz=\"0 1 0\"/>", "", inertial, "", "prismatic"),
                   {"joint 'hinge'", "prismatic joint without <limit>"}, strict);
  checkStringError(pendulum("<axis xyz=\"0 1 0\"/>", R"(<limit lower="-1" upper="1" velocity="5"/>)"),
                   {"joint 'hinge'", "<limit> has no effort attribute"}, strict);
  checkStringError(pendulum("<axis xyz=\"0 1 0\"/>", R"(<limit lower="-1" upper="1" effort="5"/>)"),
                   {"joint 'hinge'", "<limit> has no velocity attribute"}, strict);
  checkStringError(pendulum("<axis xyz=\"0 1 0\"/><dynamics/>"), {"joint 'hinge'", "<dynamics> has neither a damping nor a friction"});
  checkStringError(pendulum("<axis xyz=\"0 1 0\"/><mimic/>"), {"joint 'hinge'", "<mimic> has no joint attribute"});
  checkStringError(pendulum("<axis/>"), {"joint 'hinge'", "<axis> has no xyz attribute"});
  checkStringError(pendulum("<axis xyz=\"0 1 0\"/>", "", inertial, "", ""), {"joint 'hinge'", "unknown type ''"});
  checkStringError(R"(<robot name="r"><link name="a"/><joint type="fixed"><parent link="a"/><child link="b"/></joint><link name="b"/></robot>)",
                   {"a <joint> has no name attribute"});
  checkStringError(R"(<robot name="r"><link name="a"/><joint name="j"><parent link="a"/><child link="b"/></joint><link name="b"/></robot>)",
                   {"joint 'j' has no type attribute"});
  checkStringError(R"(<robot name="r"><link name="a"/><joint name="j" type="fixed"><parent link="a"/></joint><link name="b"/></robot>)",
                   {"joint 'j'", "no <child link=\"...\"> element"});
  checkStringError(R"(<robot name="r"><link/></robot>)", {"a <link> has no name attribute"});
  // Without a name (a warning by default, tests/test_urdf_rules.cpp), a verbatim repeat of a link likewise.
  checkStringError(R"(<robot><link name="a"/></robot>)", {"<robot> has no name attribute", "strict"}, strict);
  checkStringError(R"(<robot name="r"/>)", {"no <link> element"});
  checkStringError(R"(<robot name="r"><link name="a"/><link name="a"><inertial><mass value="1"/></inertial></link></robot>)",
                   {"link 'a' is defined more than once"});
  checkStringError(R"(<robot name="r"><link name="a"/><link name="a"/></robot>)", {"link 'a' is defined twice", "strict"}, strict);
  checkStringError(pendulum("<axis xyz=\"0 1 0\"/>", R"(<limit lower="-1" upper="1" effort="10" velocity="5"/></joint><joint name="hinge" type="fixed"><parent link="pole"/><child link="x"/>)") ,
                   {"joint 'hinge' is defined more than once"});
  // <inertial> needs <mass value>; a missing entry of <inertia> is 0 (a warning, refused by strict mode).
  checkStringError(pendulum("<axis xyz=\"0 1 0\"/>", R"(<limit lower="-1" upper="1" effort="10" velocity="5"/>)",
                            R"(<inertial><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>)"),
                   {"link 'pole'", "<inertial>", "has no <mass> element"});
  checkStringError(pendulum("<axis xyz=\"0 1 0\"/>", R"(<limit lower="-1" upper="1" effort="10" velocity="5"/>)",
                            R"(<inertial><mass/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>)"),
                   {"link 'pole'", "<mass> has no value attribute"});
  checkStringError(pendulum("<axis xyz=\"0 1 0\"/>", R"(<limit lower="-1" upper="1" effort="10" velocity="5"/>)",
                            R"(<inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" izz="1"/></inertial>)"),
                   {"link 'pole'", "<inertia> has no iyz attribute", "strict"}, strict);
  // Without <limit>, lower and upper are 0 (URDF's defaults), effort and velocity as written.
  const Model m = loadUrdfString(pendulum("<axis xyz=\"0 1 0\"/>", R"(<limit upper="0.5" effort="10" velocity="5"/>)"));
  BOOST_TEST(m.lowerPositionLimit()[0] == 0.0);
  BOOST_TEST(m.upperPositionLimit()[0] == 0.5);
}

// Numbers: every malformed one refuses the file with the element, attribute and value; white space of
// any kind separates them, and a leading '+' is a sign.
BOOST_AUTO_TEST_CASE(malformed_numbers) {
  const std::string limit = R"(<limit lower="-1" upper="1" effort="10" velocity="5"/>)";
  const std::string inertial = inertialWith("1", "0.01", "0.01", "0.01");
  checkStringError(pendulum("<axis xyz=\"0 1 0\"/>", limit, inertial, R"(<origin xyz="1,5 0 0"/>)"),
                   {"joint 'hinge'", "<origin xyz=\"1,5 0 0\">", "'1,5' is not a number"});
  checkStringError(pendulum("<axis xyz=\"0 1\"/>", limit), {"joint 'hinge'", "<axis xyz=\"0 1\">", "expected 3 numbers, found 2"});
  checkStringError(pendulum("<axis xyz=\"0 1 0 1\"/>", limit), {"joint 'hinge'", "expected 3 numbers, found more ('1')"});
  // extra zeros read with a warning (tests/test_urdf_rules.cpp); strict refuses them
  UrdfOptions strict;
  strict.strict = true;
  checkStringError(pendulum("<axis xyz=\"0 1 0 0\"/>", limit), {"joint 'hinge'", "1 extra zero after the 3 numbers", "strict"}, strict);
  checkStringError(pendulum("<axis xyz=\"0 1 0\"/>", R"(<limit lower="-1" upper="1" effort="0x10" velocity="5"/>)"),
                   {"joint 'hinge'", "<limit effort=\"0x10\">", "'0x10' is not a number"});
  checkStringError(pendulum("<axis xyz=\"0 1 0\"/>", limit, inertialWith("abc", "0.01", "0.01", "0.01")),
                   {"link 'pole'", "<mass value=\"abc\">", "'abc' is not a number"});
  checkStringError(pendulum("<axis xyz=\"0 1 0\"/>", limit, inertialWith("1e400", "0.01", "0.01", "0.01")),
                   {"link 'pole'", "'1e400' is out of the range of a double"});
  checkStringError(pendulum("<axis xyz=\"0 1 0\"/>", limit, inertialWith("nan", "0.01", "0.01", "0.01")),
                   {"link 'pole'", "'nan' is not a finite number"});
  const Model m = loadUrdfString(pendulum("<axis xyz=\"0 1 0\"/>", limit, inertial, "<origin xyz=\"+1\t0\n 2e-400 \"/>"));
  BOOST_TEST(m.Xtree(1).r()(0) == 1.0);
  BOOST_TEST(m.Xtree(1).r()(2) == 0.0);  // underflow reads as zero
}

// Numbers do not depend on the locale: a global C++ locale writing 0,5 for one half leaves "0.5" one
// half, in the tree and in the loop-joint extensions.
BOOST_AUTO_TEST_CASE(numbers_ignore_the_locale) {
  struct Comma : std::numpunct<char> {
    char do_decimal_point() const override { return ','; }
  };
  const std::locale previous = std::locale::global(std::locale(std::locale::classic(), new Comma));
  const std::string xml = pendulum("<axis xyz=\"0 1 0\"/>", R"(<limit lower="-0.5" upper="0.5" effort="10" velocity="5"/>)") ;
  const Model m = loadUrdfString(xml);
  std::locale::global(previous);
  BOOST_TEST(m.lowerPositionLimit()[0] == -0.5);
  BOOST_TEST(m.upperPositionLimit()[0] == 0.5);
}

// The reader parses the children of <robot> one at a time when the document's outline allows (the
// usual case) and the whole document otherwise (text between elements, a byte-order mark): both give
// the same model, and malformed XML anywhere is reported as such either way.
BOOST_AUTO_TEST_CASE(read_by_element_or_whole_agree) {
  const std::string limit = R"(<limit lower="-1" upper="1" effort="10" velocity="5"/>)";
  const std::string clean = pendulum("<axis xyz=\"0 1 0\"/>", limit);
  const std::string with_text = pendulum("<axis xyz=\"0 1 0\"/>", limit + "</joint>stray text<joint name=\"w\" type=\"fixed\"><parent link=\"pole\"/><child link=\"tip\"/>") ;
  const std::string fixed_tip = clean.substr(0, clean.size() - 8) + R"(<joint name="w" type="fixed"><parent link="pole"/><child link="tip"/></joint><link name="tip"/></robot>)";
  const Model a = loadUrdfString(fixed_tip);
  const Model b = loadUrdfString("\xEF\xBB\xBF<?xml version=\"1.0\"?>\n<!-- bom -->" + with_text.substr(0, with_text.size() - 8) +
                                 R"(<link name="tip"/></robot>)");
  BOOST_TEST(a.nbodies() == b.nbodies());
  BOOST_TEST(a.nframes() == b.nframes());
  BOOST_TEST((a.Xtree(1).E() == b.Xtree(1).E()));
  BOOST_TEST(a.inertia(1).mass() == b.inertia(1).mass());
  // A malformed element after an error in an earlier one: malformed XML is reported first.
  checkStringError(R"(<robot name="r"><link name="a"><inertial><mass value="x"/></inertial></link><link name="b"><visual></collision></link></robot>)",
                   {"malformed XML"});
  // An unclosed element or comment after <robot> is malformed too.
  checkStringError(clean + "<extra>", {"malformed XML"});
  checkStringError(clean + "<!-- unclosed", {"malformed XML"});
}

// The children of <robot> are parsed in batches of about 64 KB. A chain long enough for several batches,
// with comments between its children and entities in its names, gives what the whole document's parse
// gives (forced by text between the elements), and so does each faulty variant: an error in an early
// batch with malformed XML in a later one (malformed XML is reported), and a declaration between two
// children (which tinyxml2 refuses inside an element).
BOOST_AUTO_TEST_CASE(read_in_batches_or_whole_agree) {
  const int n = 1000;  // about 250 KB of children
  const auto chain = [&](int bogus_joint, int malformed_link, int declaration_before) {
    std::string xml = "<robot name=\"r\"><link name=\"l&amp;0\"/>";
    for (int i = 1; i <= n; ++i) {
      const std::string index = std::to_string(i);
      if (i == declaration_before) xml += "<?xml version=\"1.0\"?>";
      xml += "\n  <!-- link " + index + " -->\n  <link name=\"l&amp;" + index + "\">" +
             (i == malformed_link ? "<visual></collision>" : "") +
             "<inertial><mass value=\"1\"/><inertia ixx=\"1\" iyy=\"1\" izz=\"1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/>"
             "</inertial></link><joint name=\"j&lt;" + index + "&gt;\" type=\"" + (i == bogus_joint ? "bogus" : "continuous") +
             "\"><parent link=\"l&amp;" + std::to_string(i - 1) + "\"/><child link=\"l&amp;" + index +
             "\"/><origin xyz=\"0 0 -0.1\"/></joint>";
    }
    return xml + "\n</robot>";
  };
  // What loading gives: the bodies and joints by name, or the error.
  const auto outcome = [](const std::string& xml) {
    try {
      const Model m = loadUrdfString(xml);
      std::string bodies = std::to_string(m.nbodies()) + " bodies:";
      for (int i = 1; i < m.nbodies(); ++i) bodies += " " + m.bodyName(i) + "/" + m.joint(i).name;
      return bodies;
    } catch (const Error& e) {
      return "error: " + std::string(e.what());
    }
  };
  const auto whole = [](std::string xml) { return xml.insert(xml.find("<link"), "stray text"); };
  const std::string clean = chain(-1, -1, -1);
  BOOST_TEST(clean.size() > 3 * (64u << 10));
  const Model m = loadUrdfString(clean);
  BOOST_TEST(m.bodyId("l&500") == 500);
  BOOST_TEST(m.jointId("j<1000>") == n);
  for (const std::string& xml : {clean, chain(2, -1, -1), chain(2, n, -1), chain(-1, -1, n - 1)}) {
    BOOST_TEST(outcome(xml) == outcome(whole(xml)));
  }
  checkStringError(chain(2, -1, -1), {"joint 'j<2>' has unknown type 'bogus'"});
  checkStringError(chain(2, n, -1), {"malformed XML"});
  checkStringError(chain(-1, -1, n - 1), {"malformed XML"});
}

BOOST_AUTO_TEST_CASE(mimic_errors) {
  // Warnings by default (test_urdf_real.cpp), errors in strict mode.
  UrdfOptions strict;
  strict.strict = true;
  const std::string limit = R"(<limit lower="-1" upper="1" effort="10" velocity="5"/>)";
  checkStringError(pendulum("<axis xyz=\"0 1 0\"/><mimic joint=\"nothing\"/>", limit), {"'hinge'", "'nothing'"}, strict);
  checkStringError(R"(<robot name="r"><link name="base"/>
    <joint name="w" type="fixed"><parent link="base"/><child link="a"/><mimic joint="x"/></joint><link name="a"/></robot>)",
                   {"joint 'w' is fixed but has a <mimic> element"}, strict);
  // A leader that is a moving joint of another kind still needs two one-DoF joints.
  checkStringError(R"(<robot name="r"><link name="base"/>
    <joint name="free" type="floating"><parent link="base"/><child link="a"/></joint>
    <link name="a"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
    <joint name="f" type="continuous"><parent link="a"/><child link="b"/><mimic joint="free"/></joint>
    <link name="b"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link></robot>)",
                   {"'f'", "'free'", "one-DoF"});
}

// ---------------------------------------------------------------------------------------------------
// The bundled models, against the files' own numbers.

BOOST_AUTO_TEST_CASE(bundled_models) {
  const std::vector<std::string> paths = bundledModels();
  BOOST_TEST_REQUIRE(!paths.empty());
  for (const std::string& path : paths) {
    const FileFacts f = readFacts(path);
    int moving = 0, nq = 0, nv = 0;
    for (const FileJoint& j : f.joints) {
      if (j.type == "fixed") continue;
      ++moving;
      nq += j.type == "floating" ? 7 : j.type == "planar" ? 3 : 1;
      nv += j.type == "floating" ? 6 : j.type == "planar" ? 3 : 1;
    }
    double all_mass = 0.0, welded_mass = 0.0;
    for (const auto& [link, m] : f.mass) {
      all_mass += m;
      if (f.welded.count(link)) welded_mass += m;
    }
    const bool root_is_world = f.root == "world";
    for (const bool floating : {false, true}) {
      if (floating && root_is_world) continue;
      BOOST_TEST_CONTEXT(path << (floating ? " (floating base)" : " (fixed base)")) {
        UrdfOptions options;
        options.floating_base = floating;
        // A massless root set free over a single one-DoF body duplicates that joint's motion: M is
        // singular, and the loader gives a kinematic model whose massless bodies start with the root.
        const std::string stem = std::filesystem::path(path).stem().string();
        const Model m = loadUrdf(path, options);
        const bool singular = floating && (stem == "pendulum" || stem == "double_pendulum" || stem == "cartpole");
        BOOST_TEST(m.hasDynamics() == !singular);
        if (singular) BOOST_TEST(m.masslessBodies().front() == 1);
        BOOST_TEST(m.name() == f.robot);
        BOOST_TEST(m.bodyName(0) == "world");
        BOOST_TEST(m.nbodies() == 1 + moving + (floating ? 1 : 0));
        BOOST_TEST(m.nq() == nq + (floating ? 7 : 0));
        BOOST_TEST(m.nv() == nv + (floating ? 6 : 0));
        // One frame per link, plus the world's unless the root link is the world.
        BOOST_TEST(m.nframes() == static_cast<int>(f.links.size()) + (root_is_world ? 0 : 1));
        BOOST_TEST(static_cast<int>(m.geometries().size()) == f.geometries);
        BOOST_TEST(m.totalMass() == (floating ? all_mass : all_mass - welded_mass), boost::test_tools::tolerance(1e-12));
        for (int i = 1; i < m.nbodies(); ++i) BOOST_TEST(m.parent(i) < i);
        for (const FileJoint& j : f.joints) {
          const Frame& frame = m.frame(m.frameId(j.child));
          if (j.type == "fixed") {
            BOOST_TEST((frame.type == FrameType::Fixed));
            BOOST_TEST((frame.body == m.frame(m.frameId(j.parent)).body));
          } else {
            BOOST_TEST((frame.type == FrameType::Body));
            BOOST_TEST(m.bodyName(m.jointId(j.name)) == j.child);
          }
        }
        if (floating) {
          BOOST_TEST(m.joint(1).name == "root_joint");
          BOOST_TEST((m.joint(1).type == JointType::Floating));
          BOOST_TEST(m.bodyName(1) == f.root);
        } else if (!root_is_world) {
          BOOST_TEST((m.frame(m.frameId(f.root)).type == FrameType::Fixed));
          BOOST_TEST(m.frame(m.frameId(f.root)).body == 0);
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// A hand-written model: every joint type, a rotated inertial frame, a chain of fixed joints and a mimic.

namespace {

const char* const kHandmade = R"(<?xml version="1.0"?>
<robot name="handmade">
  <link name="base">
    <inertial><mass value="5"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
  </link>
  <joint name="slide" type="prismatic">
    <parent link="base"/><child link="cart"/>
    <origin xyz="0.1 0.2 0.3" rpy="0 0 1.5707963267948966"/>
    <axis xyz="1 0 0"/>
    <limit lower="-0.5" upper="0.7" effort="40" velocity="2"/>
    <dynamics damping="0.3" friction="0.05"/>
  </joint>
  <link name="cart">
    <inertial>
      <origin xyz="0.01 -0.02 0.03" rpy="0.3 -0.2 0.1"/>
      <mass value="2"/>
      <inertia ixx="0.02" ixy="0.001" ixz="0" iyy="0.03" iyz="0.002" izz="0.04"/>
    </inertial>
  </link>
  <joint name="bracket" type="fixed">
    <parent link="cart"/><child link="mount"/>
    <origin xyz="0 0 0.1" rpy="0 0.5 0"/>
  </joint>
  <link name="mount">
    <inertial><origin xyz="0.02 0 0"/><mass value="0.5"/><inertia ixx="0.001" ixy="0" ixz="0" iyy="0.002" iyz="0" izz="0.0025"/></inertial>
  </link>
  <joint name="plate" type="fixed">
    <parent link="mount"/><child link="sensor"/><origin xyz="0.05 0 0" rpy="0.2 0 0"/>
  </joint>
  <link name="sensor">
    <inertial>
      <origin xyz="0 0.01 0"/>
      <mass value="0.25"/>
      <inertia ixx="0.0001" ixy="0" ixz="0" iyy="0.0001" iyz="0" izz="0.0001"/>
    </inertial>
    <visual>
      <origin xyz="0.01 0.02 0.03" rpy="0 0 0.4"/>
      <geometry><box size="0.1 0.2 0.3"/></geometry>
    </visual>
    <collision name="sensor_shell">
      <geometry><cylinder radius="0.05" length="0.2"/></geometry>
    </collision>
  </link>
  <joint name="spin" type="continuous">
    <parent link="sensor"/><child link="wheel"/>
    <origin xyz="0 0 0.02"/>
    <axis xyz="0 0 1"/>
    <dynamics damping="0.01"/>
  </joint>
  <link name="wheel">
    <inertial><mass value="0.3"/><inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.0015"/></inertial>
    <visual><geometry><mesh filename="package://handmade/wheel.stl" scale="1 -1 2"/></geometry></visual>
  </link>
  <joint name="follower" type="revolute">
    <parent link="sensor"/><child link="flap"/>
    <axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="5" velocity="3"/>
    <mimic joint="spin" multiplier="-2" offset="0.1"/>
  </joint>
  <link name="flap">
    <inertial><mass value="0.1"/><inertia ixx="0.0001" ixy="0" ixz="0" iyy="0.0001" iyz="0" izz="0.0001"/></inertial>
  </link>
  <joint name="glide" type="planar">
    <parent link="base"/><child link="puck"/>
    <origin xyz="1 0 0"/>
    <axis xyz="0 0 1"/>
  </joint>
  <link name="puck">
    <inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
    <collision><geometry><sphere radius="0.1"/></geometry></collision>
  </link>
  <joint name="free" type="floating">
    <parent link="puck"/><child link="drone"/>
    <origin xyz="0 0 0.5"/>
  </joint>
  <link name="drone">
    <inertial><mass value="0.8"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.02"/></inertial>
  </link>
</robot>
)";

// A rigid part: mass, centre of mass and rotational inertia about it, all in one frame's coordinates.
struct Part {
  double m;
  Vector3 c;
  Matrix3 Ic;
};

// Moves a part given in frame F into frame B, F's pose in B being (R, p).
Part placed(const Part& part, const Matrix3& R, const Vector3& p) { return {part.m, R * part.c + p, R * part.Ic * R.transpose()}; }

// The combined part about the common centre of mass: each Ic plus m (|d|^2 1 - d d^T), d = c_i - c.
Part combined(const std::vector<Part>& parts) {
  Part sum{0.0, Vector3::Zero(), Matrix3::Zero()};
  for (const Part& p : parts) {
    sum.m += p.m;
    sum.c += p.m * p.c;
  }
  sum.c /= sum.m;
  for (const Part& p : parts) {
    const Vector3 d = p.c - sum.c;
    sum.Ic += p.Ic + p.m * (d.squaredNorm() * Matrix3::Identity() - d * d.transpose());
  }
  return sum;
}

Matrix3 diag(double a, double b, double c) { return Vector3(a, b, c).asDiagonal(); }

}  // namespace

BOOST_AUTO_TEST_CASE(handmade_model) {
  const Model m = loadUrdfString(kHandmade);
  BOOST_TEST(m.name() == "handmade");
  // Depth-first preorder, siblings by joint name: glide < slide; follower < spin.
  BOOST_TEST_REQUIRE(m.nbodies() == 6);
  const std::vector<std::string> names{"world", "puck", "drone", "cart", "flap", "wheel"};
  const std::vector<int> parents{-1, 0, 1, 0, 3, 3};
  for (int i = 0; i < 6; ++i) {
    BOOST_TEST(m.bodyName(i) == names[i]);
    BOOST_TEST(m.parent(i) == parents[i]);
  }
  BOOST_TEST(m.nq() == 3 + 7 + 1 + 1 + 1);
  BOOST_TEST(m.nv() == 3 + 6 + 1 + 1 + 1);

  // Joint types.
  const Joint& glide = m.joint("glide");
  BOOST_TEST((glide.type == JointType::Planar));
  BOOST_TEST(glide.nq == 3);
  ABDYN_CHECK_REL(glide.axis, Vector3(0, 0, 1), 1e-15);
  ABDYN_CHECK_REL(glide.axis2, Vector3(1, 0, 0), 1e-15);
  BOOST_TEST((m.joint("free").type == JointType::Floating));
  BOOST_TEST((m.joint("slide").type == JointType::PrismaticX));
  BOOST_TEST((m.joint("spin").type == JointType::RevoluteZ));
  BOOST_TEST(m.joint("spin").continuous);
  BOOST_TEST((m.joint("follower").type == JointType::RevoluteY));
  BOOST_TEST(!m.joint("follower").continuous);

  // X_tree: the joint frame's pose in the parent body, through the fixed chain cart -> mount -> sensor.
  ABDYN_CHECK_REL(m.Xtree(m.jointId("slide")).matrix(), Plx::fromPose(Rz(1.5707963267948966), Vector3(0.1, 0.2, 0.3)).matrix(),
                  1e-14);
  ABDYN_CHECK_REL(m.Xtree(m.jointId("glide")).matrix(), Plx::fromPose(Matrix3::Identity(), Vector3(1, 0, 0)).matrix(), 1e-15);
  ABDYN_CHECK_REL(m.Xtree(m.jointId("free")).matrix(), Plx::fromPose(Matrix3::Identity(), Vector3(0, 0, 0.5)).matrix(), 1e-15);
  const Matrix3 R_mount = Ry(0.5);
  const Vector3 p_mount(0, 0, 0.1);
  const Matrix3 R_sensor = R_mount * Rx(0.2);
  const Vector3 p_sensor = p_mount + R_mount * Vector3(0.05, 0, 0);
  ABDYN_CHECK_REL(m.Xtree(m.jointId("spin")).matrix(),
                  Plx::fromPose(R_sensor, p_sensor + R_sensor * Vector3(0, 0, 0.02)).matrix(), 1e-14);
  ABDYN_CHECK_REL(m.Xtree(m.jointId("follower")).matrix(), Plx::fromPose(R_sensor, p_sensor).matrix(), 1e-14);

  // Fixed links are frames on the cart body.
  const int cart = m.bodyId("cart");
  for (const auto& [name, R, p] : {std::make_tuple("mount", R_mount, p_mount), std::make_tuple("sensor", R_sensor, p_sensor)}) {
    const Frame& frame = m.frame(m.frameId(name));
    BOOST_TEST((frame.type == FrameType::Fixed));
    BOOST_TEST(frame.body == cart);
    ABDYN_CHECK_REL(frame.X_frame_body.matrix(), Plx::fromPose(R, p).matrix(), 1e-14);
  }
  BOOST_TEST((m.frame(m.frameId("base")).type == FrameType::Fixed));
  BOOST_TEST(m.frame(m.frameId("base")).body == 0);

  // The cart body's inertia: the cart link (rotated inertial frame) plus mount and sensor, combined by
  // the parallel-axis theorem.
  const Matrix3 R_cart_inertial = Rz(0.1) * Ry(-0.2) * Rx(0.3);
  Matrix3 I_cart;
  I_cart << 0.02, 0.001, 0, 0.001, 0.03, 0.002, 0, 0.002, 0.04;
  const Part cart_part{2.0, Vector3(0.01, -0.02, 0.03), R_cart_inertial * I_cart * R_cart_inertial.transpose()};
  const Part mount_part = placed({0.5, Vector3(0.02, 0, 0), diag(0.001, 0.002, 0.0025)}, R_mount, p_mount);
  const Part sensor_part = placed({0.25, Vector3(0, 0.01, 0), diag(1e-4, 1e-4, 1e-4)}, R_sensor, p_sensor);
  const Part expected = combined({cart_part, mount_part, sensor_part});
  const RigidBodyInertia& I = m.inertia(cart);
  BOOST_TEST(I.mass() == 2.75, boost::test_tools::tolerance(1e-15));
  ABDYN_CHECK_REL(I.com(), expected.c, 1e-14);
  ABDYN_CHECK_REL(I.inertiaAboutCom(), expected.Ic, 1e-13);
  // The world does not carry the base link's 5 kg.
  BOOST_TEST(m.inertia(0).mass() == 0.0);
  BOOST_TEST(m.totalMass() == 2.75 + 0.3 + 0.1 + 1.0 + 0.8, boost::test_tools::tolerance(1e-15));

  // Limits and joint dynamics.
  const Joint& slide = m.joint("slide");
  BOOST_TEST(m.lowerPositionLimit()[slide.idx_q] == -0.5);
  BOOST_TEST(m.upperPositionLimit()[slide.idx_q] == 0.7);
  BOOST_TEST(m.velocityLimit()[slide.idx_v] == 2.0);
  BOOST_TEST(m.effortLimit()[slide.idx_v] == 40.0);
  BOOST_TEST(m.damping()[slide.idx_v] == 0.3);
  BOOST_TEST(m.friction()[slide.idx_v] == 0.05);
  const Joint& spin = m.joint("spin");
  BOOST_TEST(m.lowerPositionLimit()[spin.idx_q] == -kInf);
  BOOST_TEST(m.upperPositionLimit()[spin.idx_q] == kInf);
  BOOST_TEST(m.velocityLimit()[spin.idx_v] == kInf);
  BOOST_TEST(m.effortLimit()[spin.idx_v] == kInf);
  BOOST_TEST(m.damping()[spin.idx_v] == 0.01);
  BOOST_TEST(m.friction()[spin.idx_v] == 0.0);
  const Joint& follower = m.joint("follower");
  BOOST_TEST(m.lowerPositionLimit()[follower.idx_q] == -1.0);
  BOOST_TEST(m.upperPositionLimit()[follower.idx_q] == 1.0);
  BOOST_TEST(m.velocityLimit()[follower.idx_v] == 3.0);
  BOOST_TEST(m.effortLimit()[follower.idx_v] == 5.0);

  // The mimic coupling.
  BOOST_TEST_REQUIRE(m.mimics().size() == 1u);
  BOOST_TEST(m.mimics()[0].follower == m.jointId("follower"));
  BOOST_TEST(m.mimics()[0].leader == m.jointId("spin"));
  BOOST_TEST(m.mimics()[0].multiplier == -2.0);
  BOOST_TEST(m.mimics()[0].offset == 0.1);

  // Geometry: placements composed with the link's placement in its body, default and given names.
  BOOST_TEST_REQUIRE(m.geometries().size() == 4u);
  std::map<std::string, const Geometry*> geometry;
  for (const Geometry& g : m.geometries()) geometry[g.name] = &g;
  const Geometry& box = *geometry.at("sensor/visual0");
  BOOST_TEST(box.link == "sensor");
  BOOST_TEST(box.body == cart);
  BOOST_TEST((box.role == GeometryRole::Visual));
  BOOST_TEST((box.shape == ShapeType::Box));
  ABDYN_CHECK_REL(box.size, Vector3(0.1, 0.2, 0.3), 1e-15);
  ABDYN_CHECK_REL(box.X_geometry_body.matrix(),
                  Plx::fromPose(R_sensor * Rz(0.4), p_sensor + R_sensor * Vector3(0.01, 0.02, 0.03)).matrix(), 1e-14);
  const Geometry& shell = *geometry.at("sensor_shell");
  BOOST_TEST((shell.role == GeometryRole::Collision));
  BOOST_TEST((shell.shape == ShapeType::Cylinder));
  ABDYN_CHECK_REL(shell.size, Vector3(0.05, 0.2, 0), 1e-15);
  ABDYN_CHECK_REL(shell.X_geometry_body.matrix(), Plx::fromPose(R_sensor, p_sensor).matrix(), 1e-14);
  const Geometry& wheel = *geometry.at("wheel/visual0");
  BOOST_TEST((wheel.shape == ShapeType::Mesh));
  BOOST_TEST(wheel.mesh_filename == "package://handmade/wheel.stl");
  ABDYN_CHECK_REL(wheel.mesh_scale, Vector3(1, -1, 2), 1e-15);
  BOOST_TEST(wheel.body == m.bodyId("wheel"));
  const Geometry& puck = *geometry.at("puck/collision0");
  BOOST_TEST((puck.shape == ShapeType::Sphere));
  BOOST_TEST(puck.size.x() == 0.1);
}

BOOST_AUTO_TEST_CASE(floating_base_option) {
  const Model fixed = loadUrdfString(kHandmade);
  UrdfOptions options;
  options.floating_base = true;
  const Model m = loadUrdfString(kHandmade, options);
  BOOST_TEST(m.nbodies() == fixed.nbodies() + 1);
  BOOST_TEST(m.nq() == fixed.nq() + 7);
  BOOST_TEST(m.nv() == fixed.nv() + 6);
  BOOST_TEST(m.joint(1).name == "root_joint");
  BOOST_TEST((m.joint(1).type == JointType::Floating));
  BOOST_TEST(m.parent(1) == 0);
  BOOST_TEST(m.bodyName(1) == "base");
  BOOST_TEST(m.Xtree(1).isApprox(Plx()));
  BOOST_TEST(m.inertia(1).mass() == 5.0);
  BOOST_TEST((m.frame(m.frameId("base")).type == FrameType::Body));
  BOOST_TEST(m.totalMass() == fixed.totalMass() + 5.0, boost::test_tools::tolerance(1e-15));
  // The root's children now hang from body 1.
  BOOST_TEST(m.parent(m.bodyId("puck")) == 1);
  BOOST_TEST(m.parent(m.bodyId("cart")) == 1);

  // A root link named "world" is the world itself (test_urdf_real.cpp sets such files free).
  const std::string with_world = R"(<robot name="r"><link name="world"/>
    <joint name="weld" type="fixed"><parent link="world"/><child link="base"/><origin xyz="0 0 1"/></joint>
    <link name="base"><inertial><mass value="2"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
    <joint name="hinge" type="continuous"><parent link="base"/><child link="arm"/></joint>
    <link name="arm"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link></robot>)";
  const Model w = loadUrdfString(with_world);
  BOOST_TEST(w.nbodies() == 2);
  BOOST_TEST(w.bodyName(0) == "world");
  BOOST_TEST(w.nframes() == 3);
  BOOST_TEST(w.frame(w.frameId("base")).body == 0);
  ABDYN_CHECK_REL(w.Xtree(1).r(), Vector3(0, 0, 1), 1e-15);
  checkStringError(R"(<robot name="r"><link name="world"/>
    <joint name="slide" type="prismatic"><parent link="world"/><child link="base"/><limit effort="1" velocity="1"/></joint>
    <link name="base"><inertial><mass value="2"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link></robot>)",
                   {"floating_base", "'world'", "moving joint 'slide'"}, options);
  checkStringError(R"(<robot name="r"><link name="base"/>
    <joint name="root_joint" type="continuous"><parent link="base"/><child link="arm"/></joint>
    <link name="arm"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link></robot>)",
                   {"joint 'root_joint'"}, options);
}

BOOST_AUTO_TEST_CASE(gravity_option) {
  ABDYN_CHECK_REL(loadUrdfString(kHandmade).gravity().linear(), Vector3(0, 0, -9.81), 0.0);
  UrdfOptions options;
  options.gravity = Vector3(0.5, 0, -1.62);
  const Model m = loadUrdfString(kHandmade, options);
  BOOST_TEST((m.gravity().linear() == Vector3(0.5, 0, -1.62)));
  BOOST_TEST((m.gravity().angular() == Vector3::Zero()));
  options.gravity = Vector3(0, 0, std::nan(""));
  checkStringError(kHandmade, {"gravity"}, options);
}

BOOST_AUTO_TEST_CASE(long_chains) {
  // 1000 links through moving joints and 1000 through fixed ones: the loader must not recurse per link.
  for (const std::string type : {"continuous", "fixed"}) {
    std::ostringstream xml;
    xml << "<robot name=\"chain\"><link name=\"l0\"/>";
    for (int i = 1; i <= 1000; ++i) {
      xml << "<joint name=\"j" << i << "\" type=\"" << type << "\"><parent link=\"l" << i - 1 << "\"/><child link=\"l" << i
          << "\"/><origin xyz=\"0 0 0.01\"/></joint><link name=\"l" << i
          << "\"><inertial><mass value=\"0.1\"/><inertia ixx=\"0.001\" ixy=\"0\" ixz=\"0\" iyy=\"0.001\" iyz=\"0\" izz=\"0.001\"/></inertial></link>";
    }
    xml << "</robot>";
    UrdfOptions options;
    options.floating_base = type == "fixed";
    const Model m = loadUrdfString(xml.str(), options);
    BOOST_TEST(m.nbodies() == (type == "fixed" ? 2 : 1001));
    BOOST_TEST(m.nframes() == 1002);
    BOOST_TEST(m.totalMass() == 100.0, boost::test_tools::tolerance(1e-12));
    if (type == "fixed") ABDYN_CHECK_REL(m.frame(m.frameId("l1000")).X_frame_body.r(), Vector3(0, 0, 10), 1e-12);
  }
}

// ---------------------------------------------------------------------------------------------------
// Output: loading (successfully or not) writes nothing to stdout, neither through std::cout nor
// through the C stream or file descriptor 1.

BOOST_AUTO_TEST_CASE(nothing_on_stdout) {
  std::vector<std::string> inputs{pendulum(), "", "<robot", "<foo/>", R"(<robot name="x"><link name="a"/><link name="b"/></robot>)",
                                  pendulum("<axis xyz=\"0 nan 0\"/>"), R"(<robot name="x"><link/></robot>)",
                                  R"(<robot name="x"><link name="a"><visual><material name="m"/></visual></link></robot>)",
                                  R"(<robot name="x"><link name="a"><visual><geometry><sphere radius="1"/></geometry><material name="m"/></visual></link></robot>)",
                                  R"(<robot name="x"><joint name="j" type="fixed"><child link="a"/></joint><link name="a"/></robot>)"};
  std::fflush(stdout);
  std::cout.flush();
  const std::string path = abdyn::test::temporaryPath("abdyn_test_stdout.txt");
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  BOOST_TEST_REQUIRE(fd >= 0);
  const int saved = dup(1);
  dup2(fd, 1);
  std::ostringstream cout_text;
  std::streambuf* const cout_buf = std::cout.rdbuf(cout_text.rdbuf());
  int loaded = 0, failed = 0;
  for (const std::string& path_in : bundledModels()) {
    try {
      loadUrdf(path_in);
      ++loaded;
    } catch (const std::exception&) {
      ++failed;
    }
  }
  for (const std::string& xml : inputs) {
    try {
      loadUrdfString(xml);
      ++loaded;
    } catch (const std::exception&) {
      ++failed;
    }
  }
  std::cout.rdbuf(cout_buf);
  std::fflush(stdout);
  dup2(saved, 1);
  close(saved);
  close(fd);
  BOOST_TEST(failed >= 7);
  BOOST_TEST(loaded >= 3);
  BOOST_TEST(cout_text.str().empty(), "std::cout received: " << cout_text.str());
  BOOST_TEST(std::filesystem::file_size(path) == 0u);
  std::filesystem::remove(path);
}
