#define BOOST_TEST_MODULE mjcf
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "abdyn/abdyn.hpp"
#include "test_helpers.hpp"

// The MJCF loader's features that MuJoCo's numbers do not show (names, frames, defaults, keyframes,
// actuators, equalities, includes) and its errors. The dynamics against MuJoCo itself:
// test_reference_mujoco_mjcf.cpp.

using namespace abdyn;
namespace tt = boost::test_tools;

namespace {

const std::string kModels = std::string(ABDYN_SOURCE_DIR) + "/tests/models/mjcf/";

// MJCF messages start with the source and then a line number or ": ".
void checkError(const std::function<void()>& load, const std::string& source, const std::vector<std::string>& fragments) {
  abdyn::test::checkError(load, source, fragments, "");
}

void checkStringError(const std::string& xml, const std::vector<std::string>& fragments) {
  checkError([&] { loadMjcfString(xml); }, "<string>", fragments);
}

// A one-hinge model with `body` placed inside its moving body.
std::string pendulum(const std::string& body, const std::string& top = "") {
  return "<mujoco>" + top + R"(<worldbody><body name="b" pos="0 0 1"><joint name="j" axis="0 1 0"/>)" + body +
         "</body></worldbody></mujoco>";
}

Vector3 worldPosition(const Model& model, Data& data, const std::string& frame) {
  const Frame& f = model.frame(model.frameId(frame));
  const Plx X = f.X_frame_body * data.X_body_world[static_cast<std::size_t>(f.body)];
  return X.applyInverseToPoint(Vector3::Zero());
}

struct TemporaryFiles {
  std::vector<std::string> paths;
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = test::temporaryPath(name);
    std::ofstream(path) << text;
    paths.push_back(path);
    return path;
  }
  ~TemporaryFiles() {
    for (const std::string& p : paths) std::filesystem::remove(p);
  }
};

}  // namespace

// ---------------------------------------------------------------------------------------------------
// Structure.

BOOST_AUTO_TEST_CASE(joints_keep_names_and_mujoco_order) {
  const Model model = loadMjcf(kModels + "multi_joint.xml");
  const std::vector<std::string> joints = {"h1", "h2", "s1", "x", "y", "z", "t1", "t2"};
  BOOST_TEST_REQUIRE(model.nbodies() == 9);
  int q = 0;
  for (std::size_t k = 0; k < joints.size(); ++k) {
    const Joint& j = model.joint(static_cast<int>(k) + 1);
    BOOST_TEST(j.name == joints[k]);
    BOOST_TEST(j.idx_q == q);
    q += j.nq;
  }
  BOOST_TEST(model.nq() == 11);  // seven one-coordinate joints and a ball
  // The chain of one body's joints: massless bodies "<body>/<joint>", the body itself last.
  BOOST_TEST(model.bodyName(1) == "base/h1");
  BOOST_TEST(model.bodyName(3) == "base");
  BOOST_TEST(model.inertia(1).mass() == 0.0);
  BOOST_TEST(model.inertia(3).mass() > 0.0);
}

BOOST_AUTO_TEST_CASE(ref_is_q_at_the_drawn_pose) {
  // At q = ref every body is where the file draws it: (0 0 1) + (0.5 0 0) + (0.4 0 0) for the hand.
  const MjcfModel m = loadMjcfModel(kModels + "hinge_chain.xml");
  const Model& model = m.model;
  Eigen::VectorXd q(3);
  q << 20 * M_PI / 180, -35 * M_PI / 180, 0.0;
  Data data(model);
  forwardKinematics(model, data, q);
  ABDYN_CHECK_NEAR(worldPosition(model, data, "hand"), Vector3(0.9, 0.0, 1.0), 1e-14);
  // The wrist's range, in degrees in the file, in radians on the model.
  BOOST_TEST(model.lowerPositionLimit()[2] == -M_PI / 2, boost::test_tools::tolerance(1e-15));
  BOOST_TEST(model.armature()[0] == 0.05);
  BOOST_TEST(model.damping()[1] == 0.1);
  BOOST_TEST(model.gravity().linear().isApprox(Vector3(0.3, -0.2, -9.81)));
  BOOST_TEST(model.timestep() == 0.002);  // MuJoCo's default
}

BOOST_AUTO_TEST_CASE(free_joint_q_is_the_world_pose) {
  const Model model = loadMjcf(kModels + "free.xml");
  const Joint& root = model.joint("root");
  BOOST_TEST((root.type == JointType::Floating));
  BOOST_TEST(root.idx_q == 0);
  Eigen::VectorXd q = neutral(model);
  q.segment<7>(0) << 1.0, 2.0, 3.0, std::cos(0.25), 0.0, 0.0, std::sin(0.25);  // 0.5 rad about z
  Data data(model);
  forwardKinematics(model, data, q);
  ABDYN_CHECK_NEAR(worldPosition(model, data, "torso"), Vector3(1.0, 2.0, 3.0), 1e-15);
  // The leg hangs at (0.2, 0, -0.1) in the torso frame, turned by 0.5 rad.
  ABDYN_CHECK_NEAR(worldPosition(model, data, "leg"),
                   Vector3(1.0 + 0.2 * std::cos(0.5), 2.0 + 0.2 * std::sin(0.5), 2.9), 1e-15);
}

BOOST_AUTO_TEST_CASE(static_bodies_sites_and_options) {
  const Model model = loadMjcf(kModels + "static_bodies.xml");
  BOOST_TEST(model.nbodies() == 3);  // world, arm, finger: the table, mocap and bracket are fused
  BOOST_TEST(model.gravity().linear().norm() == 0.0);
  BOOST_TEST(model.timestep() == 0.005);
  BOOST_TEST(model.frame(model.frameId("table_top")).body == 0);
  BOOST_TEST((model.frame(model.frameId("bracket")).type == FrameType::Fixed));
  BOOST_TEST(model.frame(model.frameId("tool")).body == model.bodyId("arm"));
  // The bracket's box (0.1 m cube, density 1000: 1 kg) is part of the arm's inertia.
  const double capsule = M_PI * (0.03 * 0.03 * 0.3 + 4.0 / 3.0 * 0.03 * 0.03 * 0.03) * 1000;
  BOOST_TEST(model.inertia(model.bodyId("arm")).mass() == capsule + 1.0, boost::test_tools::tolerance(1e-12));
  Data data(model);
  forwardKinematics(model, data, neutral(model));
  // The tool site: 0.3 along the arm, then 0.05 along the bracket turned 30 degrees about z.
  ABDYN_CHECK_NEAR(worldPosition(model, data, "tool"),
                   Vector3(0.3 + 0.05 * std::cos(M_PI / 6), 0.05 * std::sin(M_PI / 6), 1.0), 1e-15);
}

BOOST_AUTO_TEST_CASE(defaults_cascade) {
  const Model model = loadMjcf(kModels + "defaults.xml");
  const auto dof = [&](const char* joint) { return model.joint(joint).idx_v; };
  BOOST_TEST(model.damping()[dof("waist")] == 0.1);   // main
  BOOST_TEST(model.damping()[dof("hip")] == 0.5);     // childclass leg
  BOOST_TEST(model.damping()[dof("knee")] == 0.1);    // class stiff, which inherits main, not leg
  BOOST_TEST(model.stiffness()[dof("knee")] == 3.0);
  BOOST_TEST(model.springReference()[model.joint("knee").idx_q] == 10 * M_PI / 180, boost::test_tools::tolerance(1e-15));
  BOOST_TEST(model.damping()[dof("ankle")] == 0.5);   // foot inherits leg's damping
  BOOST_TEST(model.armature()[dof("ankle")] == 0.2);
  BOOST_TEST(model.joint("ankle").axis.isApprox(Vector3::UnitX()));
  BOOST_TEST(model.upperPositionLimit()[model.joint("hip").idx_q] == M_PI / 6, boost::test_tools::tolerance(1e-15));
  BOOST_TEST(std::isinf(model.upperPositionLimit()[model.joint("waist").idx_q]));
}

BOOST_AUTO_TEST_CASE(a_site_named_like_a_body_is_renamed) {
  // MuJoCo names sites apart from bodies (dm_control's ball_in_cup has both a body and a site 'cup').
  const Model model = loadMjcfString(pendulum("<geom size='0.1'/><site name='b' pos='0 0 0.5'/>"));
  BOOST_TEST(model.frame(model.frameId("site/b")).body == model.bodyId("b"));
}

BOOST_AUTO_TEST_CASE(includes) {
  const Model model = loadMjcf(kModels + "include.xml");
  BOOST_TEST(model.nv() == 3);
  BOOST_TEST(model.joint(2).name == "shoulder");
  BOOST_TEST(model.damping()[2] == 0.3);  // from the included defaults
}

BOOST_AUTO_TEST_CASE(keyframes_and_actuators) {
  const Model model = loadMjcf(kModels + "keyframes_actuators.xml");
  BOOST_TEST_REQUIRE(model.configurations().size() == 2u);
  BOOST_TEST(model.configurations()[0].name == "stand");
  BOOST_TEST(model.configurations()[0].q[7] == 0.3);
  Eigen::VectorXd qpos0(8);
  qpos0 << 0, 0, 1, 1, 0, 0, 0, 0;  // a key without qpos is MuJoCo's qpos0
  BOOST_TEST(model.configurations()[1].q.isApprox(qpos0));
  BOOST_TEST_REQUIRE(model.actuators().size() == 2u);
  const Actuator& motor = model.actuators()[0];
  BOOST_TEST(motor.name == "hip_motor");
  BOOST_TEST(motor.kind == "motor");
  BOOST_TEST(motor.joint == model.jointId("hip"));
  BOOST_TEST(motor.gear == 50.0);
  BOOST_TEST(motor.ctrl_lower == -1.0);
  BOOST_TEST(model.actuators()[1].kind == "position");
  BOOST_TEST(std::isinf(model.actuators()[1].ctrl_upper));
}

BOOST_AUTO_TEST_CASE(equalities_become_constraints) {
  const MjcfModel m = loadMjcfModel(kModels + "equality.xml");
  const Model& model = m.model;
  BOOST_TEST_REQUIRE(m.constraints.loops.size() == 2u);  // the inactive connect is left out
  BOOST_TEST(m.constraints.loops[0].name == "loop");
  BOOST_TEST(m.constraints.loops[0].rows() == 3);
  BOOST_TEST(m.constraints.loops[1].rows() == 6);
  BOOST_TEST_REQUIRE(m.constraints.couplings.size() == 1u);
  const JointCoupling& gear = m.constraints.couplings[0];
  BOOST_TEST(gear.follower == model.jointId("d"));
  BOOST_TEST(gear.leader == model.jointId("a"));
  BOOST_TEST(gear.multiplier == 2.0);
  BOOST_TEST(gear.offset == 0.1);  // d - 0 = 0.1 + 2 (a - 0)
  // The closures hold at qpos0 (c = ref = 30 degrees).
  Eigen::VectorXd q = Eigen::VectorXd::Zero(model.nq());
  q[model.joint("c").idx_q] = M_PI / 6;
  Data data(model);
  ConstraintKinematics ck(model, m.constraints);
  constraintJacobian(model, data, m.constraints, ck, q);
  BOOST_TEST(ck.C.head(9).norm() <= 1e-15);
}

BOOST_AUTO_TEST_CASE(springs_follow_mujocos_law) {
  // One hinge with stiffness k toward springref: the static joint force is -k (q - springref).
  BOOST_TEST(!loadMjcfString(pendulum("<geom type='sphere' size='0.1' pos='0 0 -0.5'/>")).hasSprings());
  const Model sprung = loadMjcfString(
      R"(<mujoco><option gravity="0 0 0"/><worldbody><body name="b"><joint name="j" axis="0 1 0" stiffness="2" springref="10"/>
         <geom type="sphere" size="0.1"/></body></worldbody></mujoco>)");
  Data data(sprung);
  Eigen::VectorXd q(1), v = Eigen::VectorXd::Zero(1);
  q << 0.5;
  BOOST_TEST(nonlinearEffects(sprung, data, q, v)[0] == 2 * (0.5 - 10 * M_PI / 180), boost::test_tools::tolerance(1e-14));
  DynamicsOptions no_springs;
  no_springs.springs = false;
  BOOST_TEST(nonlinearEffects(sprung, data, q, v, no_springs)[0] == 0.0);
  // The derivatives refuse a model with springs unless they are switched off.
  BOOST_CHECK_THROW(forwardDynamicsDerivatives(sprung, data, q, v, v), InvalidArgument);
  forwardDynamicsDerivatives(sprung, data, q, v, v, no_springs);
}

BOOST_AUTO_TEST_CASE(what_is_not_modelled_is_listed_once_per_kind) {
  const MjcfModel m = loadMjcfModelString(R"(<mujoco><worldbody><body name="b"><joint name="j"/><geom size="0.1"/>
                                             <camera name="c1"/><camera name="c2"/></body></worldbody>
                                             <tendon/><sensor/><sensor/><contact><pair geom1="g" geom2="g"/></contact></mujoco>)");
  BOOST_TEST(m.not_modelled.size() == 4u);  // camera, tendon, sensor, contact pair
}

// ---------------------------------------------------------------------------------------------------
// Errors: each names the file, the line and the element.

BOOST_AUTO_TEST_CASE(missing_file) { checkError([] { loadMjcf("/nonexistent/robot.xml"); }, "/nonexistent/robot.xml", {"cannot open"}); }

BOOST_AUTO_TEST_CASE(malformed_xml) {
  checkStringError("<mujoco><worldbody></mujoco>", {"malformed XML"});
  checkStringError("", {"malformed XML"});
  checkStringError("<robot name='r'><link name='a'/></robot>", {"not <mujoco>"});
}

BOOST_AUTO_TEST_CASE(unknown_joint_type_and_keywords) {
  checkStringError(pendulum("<joint name='k' type='screw'/>"), {"<string>:1: <joint name='k'>", "type=\"screw\"", "hinge"});
  checkStringError(pendulum("<geom type='blob' size='1'/>"), {"<geom>", "type=\"blob\""});
  checkStringError(pendulum("<frobnicate/>"), {"unknown element <frobnicate>"});
  checkStringError("<mujoco><compiler angle='gradian'/></mujoco>", {"angle=\"gradian\""});
  checkStringError("<mujoco><bogus/></mujoco>", {"unknown MJCF section <bogus>"});
}

BOOST_AUTO_TEST_CASE(numbers_must_parse_and_be_finite) {
  checkStringError(pendulum("<geom size='0.1' pos='0 nan 0'/>"), {"pos=\"0 nan 0\"", "not a finite number"});
  checkStringError(pendulum("<geom size='0.1' pos='0 0'/>"), {"expected 3 numbers, found 2"});
  checkStringError(pendulum("<geom size='0.1 1e999'/>"), {"size=\"0.1 1e999\"", "out of the range"});
  checkStringError(pendulum("<joint name='k' damping='-1'/><geom size='0.1'/>"), {"joint 'k'", ">= 0"});
}

BOOST_AUTO_TEST_CASE(frames_and_defaults_errors) {
  checkStringError(pendulum("<geom size='0.1' quat='1 0 0 0' euler='0 0 0'/>"), {"more than one orientation"});
  checkStringError(pendulum("<geom size='0.1' quat='0 0 0 0'/>"), {"quat", "too small"});
  checkStringError(pendulum("<geom size='0.1' class='nope'/>"), {"unknown default class 'nope'"});
  checkStringError(pendulum("<geom type='sphere' fromto='0 0 0 1 0 0' size='0.1'/>"), {"fromto needs"});
  checkStringError("<mujoco><default><default/></default></mujoco>", {"no class attribute"});
  checkStringError("<mujoco><compiler coordinate='global'/></mujoco>", {"coordinate=\"global\""});
  checkStringError(pendulum("<composite type='grid' count='2 2 1'/>"), {"<composite>"});
}

BOOST_AUTO_TEST_CASE(tree_and_inertia_errors) {
  checkStringError(pendulum("<geom size='0.1'/><body name='c'><freejoint/><geom size='0.1'/></body>"),
                   {"<freejoint>", "top-level"});
  checkStringError(pendulum("<inertial pos='0 0 0' mass='-1' diaginertia='1 1 1'/>"), {"<body name='b'>", "negative"});
  checkStringError(pendulum("<inertial pos='0 0 0' mass='1' diaginertia='0.1 0.1 0.5'/>"),
                   {"<body name='b'>", "triangle inequality", "balanceinertia"});
  MjcfOptions balance;
  balance.balance_inertia = true;
  BOOST_TEST(loadMjcfString(pendulum("<inertial pos='0 0 0' mass='1' diaginertia='0.1 0.1 0.5'/>"), balance)
                 .inertia(1).inertiaAboutCom().isApprox(Matrix3::Identity() * 0.7 / 3));
  checkStringError(pendulum("<inertial mass='1' diaginertia='1 1 1'/>"), {"<inertial>", "no pos"});
  checkStringError(pendulum("<geom type='box' size='0.1 0 0.1'/>"), {"<geom>", "size must be positive"});
  checkStringError(pendulum(""), {"moves only massless bodies"});
  checkStringError("<mujoco><worldbody><body name='a'><joint name='j'/><geom size='1'/></body>"
                   "<body name='b'><joint name='j'/><geom size='1'/></body></worldbody></mujoco>",
                   {"duplicate joint name 'j'"});
}

BOOST_AUTO_TEST_CASE(include_errors) {
  TemporaryFiles files;
  const std::string a = test::temporaryPath("mjcf_cycle_a.xml"), b = test::temporaryPath("mjcf_cycle_b.xml");
  files.write("mjcf_cycle_a.xml", "<mujoco><include file='" + b + "'/></mujoco>");
  files.write("mjcf_cycle_b.xml", "<mujoco><include file='" + a + "'/></mujoco>");
  checkError([&] { loadMjcf(a); }, a, {"include cycle"});
  const std::string self = files.write("mjcf_self.xml", "<mujoco><include file='" + test::temporaryPath("mjcf_self.xml") + "'/></mujoco>");
  checkError([&] { loadMjcf(self); }, self, {"includes itself"});
  checkStringError("<mujoco><include file='/nonexistent/part.xml'/></mujoco>", {"<include>", "cannot open '/nonexistent/part.xml'"});
  checkStringError("<mujoco><include/></mujoco>", {"<include>", "no file attribute"});
  // A chain of 20 files, each including the next: deeper than 16 levels.
  std::string next = files.write("mjcf_chain_20.xml", "<mujoco/>");
  for (int k = 19; k >= 0; --k) {
    next = files.write("mjcf_chain_" + std::to_string(k) + ".xml", "<mujoco><include file='" + next + "'/></mujoco>");
  }
  // The message names the file whose <include> is one too many.
  checkError([&] { loadMjcf(next); }, test::temporaryPath("mjcf_chain_16.xml"), {"<include>", "nest more than 16"});
  const std::string broken = files.write("mjcf_broken_part.xml", "<mujoco><worldbody></mujoco>");
  checkError([&] { loadMjcfString("<mujoco><include file='" + broken + "'/></mujoco>"); }, broken, {"malformed XML"});
}

BOOST_AUTO_TEST_CASE(missing_mesh_is_an_error_only_for_inertia) {
  const std::string asset = "<asset><mesh name='m' file='/nonexistent/part.stl'/></asset>";
  // With an <inertial>, the mesh is geometry only: the model loads.
  const Model model = loadMjcfString(pendulum("<inertial pos='0 0 0' mass='1' diaginertia='1 1 1'/><geom type='mesh' mesh='m'/>", asset));
  BOOST_TEST(model.geometries().size() == 1u);
  BOOST_TEST(model.geometries()[0].mesh_filename == "/nonexistent/part.stl");
  checkStringError(pendulum("<geom type='mesh' mesh='m'/>", asset), {"<geom>", "/nonexistent/part.stl", "not found"});
  // Nor when the geom is outside inertiagrouprange.
  const Model grouped = loadMjcfString(
      pendulum("<geom size='0.1'/><geom type='mesh' mesh='m' group='4'/>", "<compiler inertiagrouprange='0 3'/>" + asset));
  BOOST_TEST(grouped.inertia(1).mass() == 1000 * 4 * M_PI * 0.001 / 3, tt::tolerance(1e-14));
  checkStringError(pendulum("<inertial pos='0 0 0' mass='1' diaginertia='1 1 1'/><geom type='mesh' mesh='none'/>", asset),
                   {"mesh 'none' is not defined"});
}

BOOST_AUTO_TEST_CASE(geoms_become_the_models_geometry) {
  const MjcfModel m = loadMjcfModelString(R"(<mujoco>
    <asset><mesh name="wedge" file="meshes/wedge.obj"/></asset>
    <worldbody>
      <geom name="floor" type="plane" size="3 2 0.1"/>
      <body name="b" pos="0 0 1">
        <joint name="j" axis="0 1 0"/>
        <geom name="s" size="0.1"/>
        <geom name="c" type="capsule" fromto="0 0 0  0 0 0.4" size="0.05" contype="3" conaffinity="5"/>
        <geom name="y" type="cylinder" size="0.05 0.2" pos="0.1 0 0"/>
        <geom name="x" type="box" size="0.1 0.2 0.3" contype="0" conaffinity="0" group="2"/>
        <geom name="e" type="ellipsoid" size="0.1 0.2 0.3"/>
        <geom name="w" type="mesh" mesh="wedge"/>
        <body name="fixed" pos="0 0 -0.5"><geom size="0.05"/></body>
      </body>
    </worldbody>
    <contact><exclude body1="b" body2="world"/><exclude body1="fixed" body2="b"/></contact>
  </mujoco>)", {}, kModels);
  const Model& model = m.model;
  const auto geometry = [&](const std::string& name) -> const Geometry& {
    for (const Geometry& g : model.geometries()) {
      if (g.name == name) return g;
    }
    BOOST_FAIL("no geometry " << name);
    return model.geometries().front();
  };
  BOOST_TEST(model.geometries().size() == 8u);
  BOOST_TEST((geometry("floor").shape == ShapeType::Plane && geometry("floor").body == 0));
  BOOST_TEST(geometry("floor").size == Vector3(3, 2, 0));
  BOOST_TEST((geometry("s").shape == ShapeType::Sphere && geometry("s").size == Vector3(0.1, 0, 0)));
  // fromto: a capsule of length 0.4 centred half way, its z along the segment.
  const Geometry& c = geometry("c");
  BOOST_TEST((c.shape == ShapeType::Capsule && c.size == Vector3(0.05, 0.4, 0)));
  BOOST_TEST((c.X_geometry_body.applyInverseToPoint(Vector3::Zero()) - Vector3(0, 0, 0.2)).norm() <= 1e-15);
  BOOST_TEST((geometry("y").shape == ShapeType::Cylinder && geometry("y").size == Vector3(0.05, 0.4, 0)));
  BOOST_TEST((geometry("x").shape == ShapeType::Box && geometry("x").size == Vector3(0.2, 0.4, 0.6)));
  BOOST_TEST((geometry("x").role == GeometryRole::Visual && geometry("s").role == GeometryRole::Collision));
  BOOST_TEST((geometry("e").shape == ShapeType::Ellipsoid && geometry("e").size == Vector3(0.1, 0.2, 0.3)));
  // The collision mesh is loaded with its hull; the fused static body's sphere is on body b.
  const Geometry& w = geometry("w");
  BOOST_TEST((w.shape == ShapeType::Mesh && w.mesh != nullptr));
  BOOST_TEST(w.mesh->triangles.vertices.size() == 6u);
  BOOST_TEST(geometry("fixed/geom0").body == model.bodyId("b"));
  // Filter bits, as written (1 and 1 by default).
  BOOST_TEST((c.contype == 3u && c.conaffinity == 5u));
  BOOST_TEST((geometry("s").contype == 1u && geometry("s").conaffinity == 1u));
  // Excludes, by geometry: b's six geoms with the floor (geometry 0), and the static body's sphere (7, fused
  // into b) with b's own six.
  std::vector<std::pair<int, int>> excluded;
  for (int g = 1; g <= 6; ++g) excluded.emplace_back(0, g);
  for (int g = 1; g <= 6; ++g) excluded.emplace_back(g, 7);
  BOOST_TEST((m.excluded_geometry_pairs == excluded));
  BOOST_TEST(m.excluded_pairs.empty());  // b has one joint: abdyn's parent rule covers it
  // The broad phase refuses a geometry index out of range.
  GroundContactSettings contact;
  contact.excluded_geometry_pairs = {{0, 8}};
  Data data(model);
  forwardKinematics(model, data, Eigen::VectorXd::Zero(model.nq()));
  BroadPhase broad_phase(model);
  BOOST_CHECK_THROW(broad_phase.pairs(model, data, contact), InvalidArgument);
  BOOST_TEST((m.body_contacts && m.filter_parent));
  checkStringError("<mujoco><worldbody><geom size='1' contype='-1'/></worldbody></mujoco>",
                   {"<geom>", "contype=\"-1\"", "a bit mask"});
  checkStringError("<mujoco><default><geom conaffinity='1.5'/></default><worldbody><geom size='1'/></worldbody></mujoco>",
                   {"<geom>", "conaffinity=\"1.5\"", "a bit mask"});
  // Contacts switched off by the file, and the parent filter.
  const auto flags = [](const char* option) {
    return loadMjcfModelString(std::string("<mujoco>") + option + "<worldbody/></mujoco>");
  };
  BOOST_TEST(!flags("<option><flag contact='disable'/></option>").body_contacts);
  BOOST_TEST(!flags("<option><flag constraint='disable'/></option>").body_contacts);
  BOOST_TEST(!flags("<option collision='predefined'/>").body_contacts);
  BOOST_TEST(flags("<option collision='dynamic'/>").body_contacts);
  BOOST_TEST(!flags("<option><flag filterparent='disable'/></option>").filter_parent);
  checkStringError("<mujoco><contact><exclude body1='a'/></contact></mujoco>", {"<exclude>", "needs body1 and body2"});
  checkStringError("<mujoco><contact><exclude body1='a' body2='world'/></contact></mujoco>", {"<exclude>", "body 'a' does not exist"});
  checkStringError("<mujoco><contact><bad/></contact></mujoco>", {"<bad>", "unknown element in <contact>"});
}

// The shape placed with refpos, refquat and scale is where the inertia puts the mass: the centroid of the
// shape's solid (signed tetrahedra, in double) is the body's centre of mass (exactmeshinertia, which is
// exact for any closed surface), to single precision, in which MuJoCo keeps the vertices.
BOOST_AUTO_TEST_CASE(a_mesh_shape_sits_where_its_inertia_is) {
  const Model model = loadMjcfString(R"(<mujoco>
    <compiler exactmeshinertia="true"/>
    <asset><mesh name="l" file="meshes/lblock.stl" refpos="0.1 0.02 0.05" refquat="0.9 0.1 -0.3 0.2" scale="1.5 1.5 1.5"/></asset>
    <worldbody><body name="b"><joint name="j"/><geom type="mesh" mesh="l" pos="0.1 0.2 0.3" euler="10 20 30"/></body></worldbody>
  </mujoco>)", {}, kModels);
  const Geometry& g = model.geometries().at(0);
  BOOST_TEST_REQUIRE(g.mesh != nullptr);
  double volume = 0.0;
  Vector3 moment = Vector3::Zero();
  for (const auto& t : g.mesh->triangles.triangles) {
    // Shape coordinates to body coordinates.
    const Vector3 a = g.X_geometry_body.applyInverseToPoint(g.mesh->triangles.vertices[static_cast<std::size_t>(t[0])]);
    const Vector3 b = g.X_geometry_body.applyInverseToPoint(g.mesh->triangles.vertices[static_cast<std::size_t>(t[1])]);
    const Vector3 c = g.X_geometry_body.applyInverseToPoint(g.mesh->triangles.vertices[static_cast<std::size_t>(t[2])]);
    const double v = a.dot(b.cross(c)) / 6;  // the tetrahedron (0, a, b, c)
    volume += v;
    moment += v * (a + b + c) / 4;
  }
  BOOST_TEST((moment / volume - model.inertia(1).com()).norm() <= 1e-6 * model.inertia(1).com().norm());
  BOOST_TEST(model.inertia(1).mass() == 1000 * volume, tt::tolerance(1e-6));
}

BOOST_AUTO_TEST_CASE(a_mesh_of_vertices_alone_is_their_convex_hull) {
  // The five points are in convex position; the faces below are their hull's (checked by hand).
  const std::string vertices = "0 0 0  0.25 0.0625 0  0.03125 0.125 0.0625  0.0625 0.046875 0.125  0.125 0.09375 0.078125";
  const Model hull = loadMjcfString(pendulum("<geom type='mesh' mesh='m'/>", "<asset><mesh name='m' vertex='" + vertices + "'/></asset>"));
  const Model faces = loadMjcfString(pendulum(
      "<geom type='mesh' mesh='m'/>",
      "<asset><mesh name='m' vertex='" + vertices + "' face='0 2 1  0 1 3  0 3 2  1 2 4  1 4 3  2 3 4'/></asset>"));
  // The same surface, its triangles listed from other corners: MuJoCo's single-precision triangle centroids
  // (which abdyn reproduces) then round differently, a few 1e-8 relative (float's epsilon is 1.2e-7).
  BOOST_TEST(hull.inertia(1).mass() == faces.inertia(1).mass(), tt::tolerance(1e-7));
  BOOST_TEST((hull.inertia(1).com() - faces.inertia(1).com()).norm() <= 1e-7 * faces.inertia(1).com().norm());
  BOOST_TEST((hull.inertia(1).inertiaAboutCom() - faces.inertia(1).inertiaAboutCom()).norm() <=
             1e-7 * faces.inertia(1).inertiaAboutCom().norm());
}

BOOST_AUTO_TEST_CASE(mesh_inertia_errors) {
  const auto model = [](const std::string& mesh, const std::string& geom = "<geom type='mesh' mesh='m'/>") {
    return pendulum(geom, "<asset><mesh name='m' " + mesh + "/></asset>");
  };
  const std::string tetra = "vertex='0 0 0  1 0 0  0 1 0  0 0 1'";
  checkStringError(model("vertex='0 0 0  1 0 0  0 1 0  1 1 0' face='0 1 2  1 3 2'"), {"<mesh name='m'>", "volume is too small"});
  checkStringError(model(tetra + " face='0 2 1  0 1 3  0 3 2  1 3 2'"), {"<mesh name='m'>", "inconsistent orientation"});
  checkStringError(model(tetra + " face='0 2 1  0 1 9'"), {"<mesh name='m'>", "vertex index 9 out of range"});
  checkStringError(model("vertex='0 0 0  1 0 0  0 1'"), {"<mesh name='m'>", "multiple of 3"});
  checkStringError(model(tetra + " face='0 2 1.5'"), {"<mesh name='m'>", "integers"});
  checkStringError(model(""), {"<mesh name='m'>", "neither file nor vertex"});
  checkStringError(model(tetra, "<geom type='mesh' mesh='m' shellinertia='true'/>"), {"<geom>", "shellinertia"});
  checkStringError(model(tetra, "<geom type='box' mesh='m'/>"), {"<geom>", "primitive fitted to a mesh"});
  // An STL file that is no mesh: the reader's message, behind the element.
  TemporaryFiles files;
  const std::string junk = files.write("mjcf_junk.stl", "not a mesh");
  checkStringError(pendulum("<geom type='mesh' mesh='j'/>", "<asset><mesh name='j' file='" + junk + "'/></asset>"),
                   {"<mesh name='j'>", junk});
}

BOOST_AUTO_TEST_CASE(absurd_sizes_are_refused_before_parsing) {
  std::string deep = "<mujoco><worldbody>";
  for (int k = 0; k < 200; ++k) deep += "<body>";
  checkStringError(deep, {"refused before parsing", "nested more than"});
  std::string wide = "<mujoco><worldbody><body ";
  for (int k = 0; k < 300; ++k) wide += "a" + std::to_string(k) + "='1' ";
  checkStringError(wide + "/></worldbody></mujoco>", {"refused before parsing", "attributes"});
  // A file that includes one file 1001 times.
  TemporaryFiles files;
  const std::string part = files.write("mjcf_part.xml", "<mujoco/>");
  std::string many = "<mujoco>";
  for (int k = 0; k < 1001; ++k) many += "<include file='" + part + "'/>";
  checkStringError(many + "</mujoco>", {"more than 1000 included files"});
}

// <composite>: what MuJoCo 2.2.2 generates (the dynamics are compared with MuJoCo on
// tests/models/mjcf/composite_*.xml by test_reference_mujoco_mjcf); here the names, the order and the refusals.
BOOST_AUTO_TEST_CASE(composite_bodies_joints_and_refusals) {
  const Model grid = loadMjcfString(R"(<mujoco><worldbody>
      <composite type="grid" prefix="g" count="2 2 1" spacing="0.1"><pin coord="1 0"/><geom size="0.02"/></composite>
    </worldbody></mujoco>)");
  // Three bodies with three slide joints each (gB1_0 is pinned: static, fused into the world).
  BOOST_TEST(grid.nv() == 9);
  BOOST_TEST(grid.joint("gJ0_0_0").idx_q == 0);
  BOOST_TEST(grid.joint("gJ2_1_1").idx_q == 8);
  BOOST_TEST(grid.frame(grid.frameId("gB1_0")).body == 0);
  BOOST_TEST(grid.frame(grid.frameId("gS0_1")).body == grid.bodyId("gB0_1"));
  // A rope from B1 of 4: B2, B3 to the right, then B0 to the left, two hinges each.
  const Model rope = loadMjcfString(R"(<mujoco><worldbody><body name="B1">
      <composite type="rope" count="4 1 1" spacing="0.1"><geom type="capsule" size="0.01 0.02"/></composite>
    </body></worldbody></mujoco>)");
  BOOST_TEST(rope.nv() == 6);
  BOOST_TEST(rope.joint("J0_2").idx_q == 0);
  BOOST_TEST(rope.joint("J1_3").idx_q == 3);
  BOOST_TEST(rope.joint("J1_0").idx_q == 5);
  BOOST_TEST(rope.parent(rope.parent(rope.bodyId("B3"))) == rope.bodyId("B2"));  // through B3/J0_3
  const MjcfModel loop = loadMjcfModelString(R"(<mujoco><worldbody><body name="B0"><freejoint/>
      <composite type="loop" count="5 1 1" spacing="0.1"><geom type="capsule" size="0.01 0.02"/></composite>
    </body></worldbody></mujoco>)");
  BOOST_TEST(loop.constraints.loops.size() == 1u);
  BOOST_TEST(loop.excluded_geometry_pairs.size() == 1u);
  const auto composite = [](const std::string& inside, const std::string& attributes = "count='3 1 1' spacing='0.1'") {
    return "<mujoco><worldbody><body name='B0'><composite " + attributes + ">" + inside +
           "</composite></body></worldbody></mujoco>";
  };
  checkStringError(composite("", "type='cloth' count='3 3 1' spacing='0.1'"), {"<composite>", "'cloth' is not generated", "mj_saveLastXML"});
  checkStringError(composite("", "type='box' count='3 3 3' spacing='0.1'"), {"'box' is not generated"});
  checkStringError(composite("", "count='3 1 1' spacing='0.1'"), {"<composite>", "no type attribute"});
  checkStringError(composite("", "type='rope' count='3 0 1' spacing='0.1'"), {"count: expected three integers"});
  checkStringError(composite("", "type='rope' count='3 1 2' spacing='0.1'"), {"singleton counts"});
  checkStringError(composite("", "type='rope' count='1000 1000 1000' spacing='0.1'"), {"more than a million bodies"});
  checkStringError(composite("", "type='rope' count='3 1 1' spacing='0'"), {"spacing must be positive"});
  checkStringError(composite("", "type='rope' count='3 3 1' spacing='0.1'"), {"one-dimensional"});
  checkStringError(composite("", "type='rope' count='3 1 1' spacing='0.1' prefix='x'"), {"must be named xB<x>"});
  checkStringError(composite("", "type='loop' count='1 1 1' spacing='0.1'"), {"one-dimensional"});
  checkStringError(composite("", "type='grid' count='2 2 2' spacing='0.1'"), {"one- or two-dimensional"});
  checkStringError(composite("<geom type='box'/>", "type='grid' count='2 2 1' spacing='0.1'"), {"<geom>", "expected one of sphere, capsule, ellipsoid"});
  checkStringError(composite("<joint/>", "type='grid' count='2 2 1' spacing='0.1'"), {"<joint>", "no kind attribute"});
  checkStringError(composite("<body/>", "type='grid' count='2 2 1' spacing='0.1'"), {"unknown element <body> in <composite>"});
}
