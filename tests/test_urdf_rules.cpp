#define BOOST_TEST_MODULE urdf_rules
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>


#include "abdyn/abdyn.hpp"
#include "captured_log.hpp"
#include "test_helpers.hpp"

using namespace abdyn;

// The loader's rules for files that describe a robot without being complete or standard URDF, each on a
// pattern file of tests/models/patterns/ (every file says what it reproduces): what loads, the one
// warning each pattern gives (captured from the library logger), strict mode's refusal, and, for
// kinematic models, every dynamics call's refusal.

namespace {

std::string pattern(const std::string& name) {
  return std::string(ABDYN_SOURCE_DIR) + "/tests/models/patterns/" + name + ".urdf";
}

bool contains(const std::string& text, const std::string& fragment) { return text.find(fragment) != std::string::npos; }

using testing::CapturedLog;

// The call must throw abdyn::Error whose message contains every fragment (test_helpers.hpp, any source).
void checkError(const std::function<void()>& call, const std::vector<std::string>& fragments) {
  abdyn::test::checkError(call, "", fragments, "");
}

UrdfOptions strict() {
  UrdfOptions o;
  o.strict = true;
  return o;
}

// Loads the pattern with default options: one warning holding every fragment; strict mode refuses it
// with the same text.
Model loadWithOneWarning(const std::string& name, const std::vector<std::string>& fragments) {
  CapturedLog log;
  Model model = loadUrdf(pattern(name));
  BOOST_TEST(log.warnings() == 1, name << ": " << log.text.str());
  for (const std::string& f : fragments) BOOST_TEST(log.has(f), name << ": '" << f << "' not in " << log.text.str());
  std::vector<std::string> refused = fragments;
  refused.push_back("strict");
  checkError([&] { loadUrdf(pattern(name), strict()); }, refused);
  return model;
}

}  // namespace

// A file without any <inertial> is a kinematic model: one warning naming the massless bodies and the
// options; kinematics, Jacobians and frames work.
BOOST_AUTO_TEST_CASE(kinematics_only_file_loads) {
  const Model m = loadWithOneWarning("kinematics_only", {"no link has an <inertial>", "mass matrix is singular",
                                                         "'upper_arm', 'forearm'", "bound_mass and bound_inertia",
                                                         "--bound-mass M --bound-inertia I"});
  BOOST_TEST(!m.hasDynamics());
  BOOST_TEST(m.masslessBodies() == (std::vector<int>{1, 2}));
  BOOST_TEST(m.totalMass() == 0.0);
  Data d(m);
  Eigen::VectorXd q = neutral(m);
  q << 0.5, 0.25;
  forwardKinematics(m, d, q);
  // The tool frame, by hand: shoulder at z = 0.1 turned 0.5 about z; elbow 0.3 above it turned 0.25
  // about y; the tool 0.25 along the forearm's z: x = 0.25 sin(0.25) cos(0.5), y = 0.25 sin(0.25) sin(0.5).
  const Vector3 tool = framePose(m, d, m.frameId("tool")).translation();
  const Vector3 expected(0.25 * std::sin(0.25) * std::cos(0.5), 0.25 * std::sin(0.25) * std::sin(0.5),
                         0.4 + 0.25 * std::cos(0.25));
  BOOST_TEST((tool - expected).norm() < 1e-15, tool.transpose());
  BOOST_TEST(frameJacobian(m, d, q, m.frameId("tool"), ReferenceFrame::World).allFinite());
}

// Every call that needs the inertias refuses a kinematic model with abdyn::Error naming its massless
// bodies and the options; none returns NaN.
BOOST_AUTO_TEST_CASE(dynamics_calls_refuse_a_kinematic_model) {
  const Model m = loadUrdf(pattern("kinematics_only"));
  Data d(m);
  const Eigen::VectorXd q = neutral(m), v = Eigen::VectorXd::Zero(m.nv());
  const std::vector<std::string> fragments = {"kinematic description without dynamics", "'upper_arm', 'forearm'",
                                              "--bound-mass M --bound-inertia I"};
  const auto refused = [&](const std::string& function, const std::function<void()>& call) {
    BOOST_TEST_CONTEXT(function) {
      std::vector<std::string> f = fragments;
      f.push_back(function);
      checkError(call, f);
    }
  };
  refused("abdyn::forwardDynamics", [&] { forwardDynamics(m, d, q, v, v); });
  refused("abdyn::forwardDynamicsCrba", [&] { forwardDynamicsCrba(m, d, q, v, v); });
  refused("abdyn::inverseDynamics", [&] { inverseDynamics(m, d, q, v, v); });
  refused("abdyn::nonlinearEffects", [&] { nonlinearEffects(m, d, q, v); });
  refused("abdyn::gravityTorques", [&] { gravityTorques(m, d, q); });
  refused("abdyn::massMatrix", [&] { massMatrix(m, d, q); });
  refused("abdyn::inverseMassMatrix", [&] { inverseMassMatrix(m, d, q); });
  refused("abdyn::kineticEnergy", [&] { kineticEnergy(m, d, q, v); });
  refused("abdyn::potentialEnergy", [&] { potentialEnergy(m, d, q); });
  refused("abdyn::centerOfMass", [&] { centerOfMass(m, d, q); });
  refused("abdyn::forwardDynamicsDerivatives", [&] { forwardDynamicsDerivatives(m, d, q, v, v); });
  refused("abdyn::inverseDynamicsDerivatives", [&] { inverseDynamicsDerivatives(m, d, q, v, v); });
  const ConstraintSet none;
  ConstrainedDynamicsData cd(m, none);
  refused("abdyn::forwardDynamicsConstrained", [&] { forwardDynamicsConstrained(m, d, cd, none, q, v, v); });
  refused("abdyn::Simulator", [&] { Simulator simulator(m); });
  RungeKutta4 rk4(m);
  Eigen::VectorXd qs = q, vs = v;
  refused("abdyn::RungeKutta4::step", [&] { rk4.step(m, d, qs, vs, v, 1e-3); });
  SemiImplicitEuler euler(m);
  refused("abdyn::SemiImplicitEuler::step", [&] { euler.step(m, d, qs, vs, v, 1e-3); });
  const RowMatrixXd Q = q.transpose(), V = v.transpose();
  RowMatrixXd out(1, m.nv());
  refused("forwardDynamicsBatch", [&] { forwardDynamicsBatch(m, Q, V, V, out, 1); });
  BOOST_TEST((qs == q));  // the refused steps left the state alone
}

// The bounds give the same file dynamics: M regular, no warning.
BOOST_AUTO_TEST_CASE(bounds_give_a_kinematic_file_dynamics) {
  UrdfOptions options;
  options.bound_mass = 0.1;
  options.bound_inertia = 1e-4;
  CapturedLog log;
  const Model m = loadUrdf(pattern("kinematics_only"), options);
  BOOST_TEST(log.warnings() == 0, log.text.str());
  BOOST_TEST(m.hasDynamics());
  BOOST_TEST(m.masslessBodies().empty());
  Data d(m);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(m.nv());
  BOOST_TEST(forwardDynamics(m, d, neutral(m), zero, zero).allFinite());
}

// A ModelBuilder refuses a massless subtree unless told that the model is a kinematic description.
BOOST_AUTO_TEST_CASE(builder_accepts_kinematics_only_when_asked) {
  const auto build = [](bool accept) {
    ModelBuilder builder("arm");
    JointSpec hinge;
    hinge.name = "hinge";
    builder.addBody(0, hinge, Plx(), RigidBodyInertia(), "link");
    if (accept) builder.acceptKinematicsOnly();
    return builder.build();
  };
  checkError([&] { build(false); }, {"joint 'hinge' moves only massless bodies"});
  const Model m = build(true);
  BOOST_TEST(!m.hasDynamics());
  BOOST_TEST(m.masslessBodies() == std::vector<int>{1});
}

BOOST_AUTO_TEST_CASE(two_inertials_use_the_first) {
  const Model m = loadWithOneWarning("double_inertial", {"link 'finger' has 2 <inertial> elements",
                                                         "mass 0.05, mass 0.07", "the first is used"});
  BOOST_TEST(m.inertia(m.bodyId("finger")).mass() == 0.05);
  BOOST_TEST((m.inertia(m.bodyId("finger")).com() == Vector3(0, 0, 0.02)));
}

BOOST_AUTO_TEST_CASE(mass_without_inertia_is_a_point_mass) {
  const Model m = loadWithOneWarning("point_mass_inertial", {"link 'pole'", "<mass> but no <inertia>", "point mass"});
  const RigidBodyInertia& pole = m.inertia(m.bodyId("pole"));
  BOOST_TEST(pole.mass() == 0.1);
  BOOST_TEST((pole.com() == Vector3(0, 0, 0.5)));
  BOOST_TEST((pole.inertiaAboutCom() == Matrix3::Zero()));
  BOOST_TEST(m.hasDynamics());  // the cart and the point mass on the hinge make M regular
}

BOOST_AUTO_TEST_CASE(limits_without_effort_or_velocity) {
  CapturedLog log;
  const Model m = loadUrdf(pattern("limit_without_effort"));
  log.checkWarnings(2, {"joint 'left_joint': <limit> has no effort attribute, which URDF requires: the joint's effort is unlimited",
                        "joint 'right_joint': <limit> has no velocity attribute"});
  const Joint& left = m.joint("left_joint");
  const Joint& right = m.joint("right_joint");
  BOOST_TEST(std::isinf(m.effortLimit()[left.idx_v]));
  BOOST_TEST(m.velocityLimit()[left.idx_v] == 0.1);
  BOOST_TEST(m.effortLimit()[right.idx_v] == 20.0);
  BOOST_TEST(std::isinf(m.velocityLimit()[right.idx_v]));
  BOOST_TEST(m.upperPositionLimit()[left.idx_q] == 0.04);
  checkError([] { loadUrdf(pattern("limit_without_effort"), strict()); }, {"joint 'left_joint'", "no effort", "strict"});
}

// Revolute and prismatic joints without <limit> (URDF requires it): each loads unbounded with a warning
// naming the joint and what is assumed; strict mode refuses the file.
BOOST_AUTO_TEST_CASE(joints_without_limit_load_unbounded) {
  CapturedLog log;
  const Model m = loadUrdf(pattern("joints_without_limit"));
  BOOST_TEST(log.warnings() == 2, log.text.str());
  BOOST_TEST(log.has("joint 'torso_lift_joint': a prismatic joint without <limit>, which URDF requires: loaded "
                     "unbounded (no position, effort or velocity limit)"),
             log.text.str());
  BOOST_TEST(log.has("joint 'head_pan_joint': a revolute joint without <limit>"), log.text.str());
  for (const char* name : {"torso_lift_joint", "head_pan_joint"}) {
    const Joint& j = m.joint(name);
    BOOST_TEST(std::isinf(m.lowerPositionLimit()[j.idx_q]), name);
    BOOST_TEST(std::isinf(m.upperPositionLimit()[j.idx_q]), name);
    BOOST_TEST(std::isinf(m.effortLimit()[j.idx_v]), name);
    BOOST_TEST(std::isinf(m.velocityLimit()[j.idx_v]), name);
  }
  BOOST_TEST((m.joint("torso_lift_joint").type == JointType::PrismaticZ));
  BOOST_TEST((m.joint("head_pan_joint").type == JointType::RevoluteZ));
  checkError([] { loadUrdf(pattern("joints_without_limit"), strict()); },
             {"joint 'torso_lift_joint'", "prismatic joint without <limit>", "strict"});
}

// A joint whose parent is 'world', a link the file does not define (Drake's files): the world, with one
// warning; strict mode refuses. The arm hangs 0.5 m above the world's origin, as the joint's origin says.
BOOST_AUTO_TEST_CASE(undefined_world_parent_is_the_world) {
  const Model m = loadWithOneWarning("world_parent_undefined",
                                     {"joint 'world_joint' names parent link 'world', which the file does not define",
                                      "as if the file had <link name=\"world\"/>"});
  BOOST_TEST(m.nv() == 1);
  Data data(m);
  forwardKinematics(m, data, neutral(m));
  BOOST_TEST(data.X_body_world[static_cast<std::size_t>(m.bodyId("arm"))].toPose().translation().z() == 0.5);
}

BOOST_AUTO_TEST_CASE(spherical_joints_are_ball_joints) {
  const Model m = loadWithOneWarning("spherical_joint", {"joint 'ball' has type 'spherical'", "ball joint"});
  BOOST_TEST(m.joint("ball").type == JointType::Spherical);
  BOOST_TEST(m.nq() == 4);
  BOOST_TEST(m.nv() == 3);
}

// A soft body beside rigid links: the links load, the soft body is named in a warning.
BOOST_AUTO_TEST_CASE(deformable_bodies_are_named) {
  const Model m = loadWithOneWarning("deformable_body", {"<deformable> body", "ignored: abdyn models rigid bodies only"});
  BOOST_TEST(m.nv() == 1);
  BOOST_TEST(m.nbodies() == 2);
}

// A file without a link says what it holds instead: a soft body, nothing, other elements, includes.
BOOST_AUTO_TEST_CASE(files_without_links_say_what_they_hold) {
  checkError([] { loadUrdfString(R"(<robot name="torus"><deformable name="torus"><mass value="3"/></deformable></robot>)"); },
             {"no <link> element", "describes a deformable body (<deformable>", "rigid bodies only"});
  checkError([] { loadUrdfString(R"(<robot name="dummy"> <!-- a comment --> </robot>)"); },
             {"no <link> element: the <robot> element is empty"});
  checkError([] {
    loadUrdfString(R"(<robot name="bench"><transmission name="t"><type>SimpleTransmission</type></transmission>
                      <joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint></robot>)");
  }, {"no <link> element: the <robot> holds only <joint>, <transmission>"});
  // XInclude: the included parts would be missing, with or without links of its own.
  const std::string includes = R"xml(<robot name="r" xmlns:xi="http://www.w3.org/2003/XInclude">
    <xi:include href="leg.urdf" xpointer="xpointer(//robot/*)"/>LINK
    <xi:include href="arm.urdf" xpointer="xpointer(//robot/*)"/></robot>)xml";
  for (const std::string& link : {std::string(), std::string("<link name=\"base\"/>")}) {
    const std::string xml = includes.substr(0, includes.find("LINK")) + link + includes.substr(includes.find("LINK") + 4);
    checkError([&] { loadUrdfString(xml); },
               {"by XInclude (<xi:include href=\"leg.urdf\">, 2 in all)", "xmllint --xinclude FILE.urdf > EXPANDED.urdf"});
  }
}

// A joint naming a missing link: a fragment's root (named only as a parent) or a misspelt child.
BOOST_AUTO_TEST_CASE(missing_links_are_explained) {
  checkError([] {
    loadUrdfString(R"(<robot name="head"><link name="neck"/><link name="skull"/>
      <joint name="j_neck" type="fixed"><parent link="pelvis"/><child link="neck"/></joint>
      <joint name="j_skull" type="fixed"><parent link="neck"/><child link="skull"/></joint></robot>)");
  }, {"refers to parent link 'pelvis', which does not exist; the file names 'pelvis' only as a parent",
      "fragment meant to be included"});
  checkError([] {
    loadUrdfString(R"(<robot name="rov"><link name="body"/><link name="top_propeller"/><link name="side"/>
      <joint name="top" type="continuous"><parent link="body"/><child link="Z_propeller"/></joint>
      <joint name="s" type="fixed"><parent link="body"/><child link="side"/></joint></robot>)");
  }, {"refers to child link 'Z_propeller', which does not exist (links no joint holds as its child: 'body', 'top_propeller')"});
  // A missing parent that another joint names as a child is not called a fragment.
  try {
    loadUrdfString(R"(<robot name="r"><link name="a"/>
      <joint name="j2" type="fixed"><parent link="b"/><child link="a"/></joint>
      <joint name="j1" type="fixed"><parent link="a"/><child link="b"/></joint></robot>)");
    BOOST_TEST(false, "loaded a file with missing links");
  } catch (const Error& e) {
    BOOST_TEST(!contains(e.what(), "fragment"), e.what());
  }
}

// A xacro source says what it is and how to expand it, whatever error it meets first.
BOOST_AUTO_TEST_CASE(xacro_sources_are_named) {
  checkError([] { loadUrdf(pattern("xacro_source")); },
             {"xacro source, not a URDF", "xacro FILE.urdf.xacro > FILE.urdf"});
  // Expanded, apart from an unused property: loads, with a warning naming the xacro element.
  CapturedLog log;
  const Model m = loadUrdfString(R"(<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">
    <xacro:property name="unused" value="1"/>
    <link name="base"/>
    <joint name="j" type="continuous"><parent link="base"/><child link="a"/></joint>
    <link name="a"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
    </robot>)");
  BOOST_TEST(m.nv() == 1);
  log.checkWarnings(1, {"unexpanded xacro elements (<xacro:property>)"});
  // A file xacro generated keeps its comments, which may quote xacro markup: its faults are its own.
  try {
    loadUrdfString(R"(<robot name="r"><!-- xacro replaces ${cal_x} and <xacro:arm/> -->
      <link name="base"/><joint name="x" type="prismatic"><parent link="base"/><child link="a"/></joint>
      <link name="a"/></robot>)", strict());
    BOOST_TEST(false, "strict mode loaded a prismatic joint without <limit>");
  } catch (const Error& e) {
    BOOST_TEST(contains(e.what(), "prismatic joint without <limit>"), e.what());
    BOOST_TEST(!contains(e.what(), "xacro source"), e.what());
  }
}

// Elements that a joint's type gives no meaning: one warning each, and the model is the one without them.
BOOST_AUTO_TEST_CASE(unused_joint_elements_are_warned) {
  CapturedLog log;
  const Model m = loadUrdfString(R"(<robot name="r">
    <link name="base"/>
    <joint name="spin" type="continuous"><parent link="base"/><child link="a"/>
      <limit lower="-1" upper="1" effort="3" velocity="4"/></joint>
    <link name="a"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
    <joint name="weld" type="fixed"><parent link="a"/><child link="b"/>
      <limit lower="0" upper="1" effort="1" velocity="1"/><dynamics damping="2"/></joint>
    <link name="b"/>
    </robot>)");
  log.checkWarnings(3, {"joint 'spin': <limit lower upper> are ignored",
                        "joint 'weld' is fixed: its <limit> is ignored",
                        "joint 'weld' is fixed: its <dynamics> is ignored"});
  BOOST_TEST(std::isinf(m.upperPositionLimit()[0]));
  BOOST_TEST(m.effortLimit()[0] == 3.0);  // effort and velocity apply to a continuous joint
}

// Drake's <loop_joint> form closes the same four-bar as abdyn's form: the same rows at every
// configuration (compared to rounding, 1e-15 on numbers of order 1).
BOOST_AUTO_TEST_CASE(drake_loop_joint_is_a_revolute_closure) {
  const std::string path = pattern("drake_loop_joint");
  const Model m = loadUrdf(path);
  const ConstraintSet drake = loadUrdfLoops(path, m);
  BOOST_TEST_REQUIRE(drake.loops.size() == 1u);
  BOOST_TEST(drake.loops[0].rows() == 5);
  const ConstraintSet own = loadUrdfLoopsString(R"(<robot name="drake_loop_joint">
    <loop_joint name="coupler_rocker" type="revolute">
      <predecessor link="coupler" xyz="1 0 0"/><successor link="rocker" xyz="0 0 -0.5"/><axis xyz="0 1 0"/>
    </loop_joint></robot>)", m);
  Data d(m);
  ConstraintKinematics a(m, drake), b(m, own);
  std::mt19937 rng(29);
  for (int s = 0; s < 5; ++s) {
    const Eigen::VectorXd q = randomConfiguration(m, rng);
    constraintJacobian(m, d, drake, a, q);
    constraintJacobian(m, d, own, b, q);
    BOOST_TEST((a.C - b.C).cwiseAbs().maxCoeff() < 1e-15);
    BOOST_TEST((a.G - b.G).cwiseAbs().maxCoeff() < 1e-15);
  }
  // The parallelogram is closed at q = 0.
  constraintJacobian(m, d, drake, a, neutral(m));
  BOOST_TEST(a.C.cwiseAbs().maxCoeff() < 1e-15);
  // Isaac Sim's exporter writes the second end as a second <link1>: read as <link2>.
  const ConstraintSet isaac = loadUrdfLoopsString(R"(<robot name="drake_loop_joint">
    <loop_joint name="l" type="spherical"><link1 link="coupler" xyz="1 0 0"/><link1 link="rocker" xyz="0 0 -0.5"/>
    </loop_joint></robot>)", m);
  BOOST_TEST(isaac.loops[0].rows() == 3);
  BOOST_TEST(isaac.loops[0].body_b == m.bodyId("rocker"));
  // A Drake loop joint without its second end, or with three, is refused naming it.
  checkError([&] {
    loadUrdfLoopsString(R"(<robot name="r"><loop_joint name="d" type="continuous"><link1 link="coupler"/></loop_joint></robot>)", m);
  }, {"<string>: loop joint 'd': missing <link2>"});
  checkError([&] {
    loadUrdfLoopsString(R"(<robot name="r"><loop_joint name="d" type="continuous"><link1 link="coupler"/>
      <link1 link="rocker"/><link1 link="crank"/></loop_joint></robot>)", m);
  }, {"loop joint 'd': more than two <link1>"});
}

// A loop closure as the Simulator's row joint holds the same constraint: at a closed configuration,
// both are satisfied, and opening the hinge about its axis changes neither.
BOOST_AUTO_TEST_CASE(row_joint_of_a_loop_closure) {
  const Model m = loadUrdf(pattern("drake_loop_joint"));
  const ConstraintSet set = loadUrdfLoops(pattern("drake_loop_joint"), m);
  const RowJoint joint = rowJointOf(set.loops[0]);
  BOOST_TEST((joint.type == RowJointType::Hinge));
  BOOST_TEST(joint.body_a == m.bodyId("coupler"));
  BOOST_TEST(joint.body_b == m.bodyId("rocker"));
  // The joint frames' z is the closure's axis (y of both links), and the frames sit at the ends.
  BOOST_TEST((joint.X_frame_a.E().row(2).transpose() - Vector3::UnitY()).norm() < 1e-15);
  BOOST_TEST((joint.X_frame_a.r() - Vector3(1, 0, 0)).norm() < 1e-15);
  BOOST_TEST((joint.X_frame_b.r() - Vector3(0, 0, -0.5)).norm() < 1e-15);
  // Each of the four closure kinds maps to its row joint.
  const ConstraintSet kinds = loadUrdfLoopsString(R"(<robot name="drake_loop_joint">
    <loop_joint name="f" type="fixed"><predecessor link="coupler"/><successor link="rocker"/></loop_joint>
    <loop_joint name="s" type="spherical"><predecessor link="coupler"/><successor link="rocker"/></loop_joint>
    <loop_joint name="p" type="prismatic"><predecessor link="coupler"/><successor link="rocker"/><axis xyz="0 0 1"/></loop_joint>
    </robot>)", m);
  BOOST_TEST((rowJointOf(kinds.loops[0]).type == RowJointType::Fixed));
  BOOST_TEST((rowJointOf(kinds.loops[1]).type == RowJointType::Ball));
  const RowJoint slider = rowJointOf(kinds.loops[2]);
  BOOST_TEST((slider.type == RowJointType::Slider));
  BOOST_TEST((slider.X_frame_a.E().row(2).transpose() - Vector3::UnitZ()).norm() < 1e-15);
}

// randomConfiguration treats limits of kUnboundedLimit or more as absent: a joint written with
// +-999999 samples [-pi, pi] like a continuous one; a one-sided huge limit keeps the other side.
BOOST_AUTO_TEST_CASE(huge_limits_are_unbounded) {
  ModelBuilder builder("huge");
  JointSpec hinge;
  hinge.name = "hinge";
  hinge.lower = -999999.0;
  hinge.upper = 999999.0;
  const RigidBodyInertia I(1.0, Vector3(0, 0, -1), 0.01 * Matrix3::Identity());
  builder.addBody(0, hinge, Plx(), I, "a");
  JointSpec slider;
  slider.type = JointType::Prismatic;
  slider.name = "slider";
  slider.lower = 0.5;
  slider.upper = 1e16;
  builder.addBody(1, slider, Plx(), I, "b");
  const Model m = builder.build();
  std::mt19937 rng(29);
  for (int s = 0; s < 200; ++s) {
    const Eigen::VectorXd q = randomConfiguration(m, rng);
    BOOST_TEST(std::abs(q[0]) <= M_PI);
    BOOST_TEST((q[1] >= 0.5 && q[1] <= 2.5), q[1]);  // [lo, max(1, lo + 2)] (configuration.hpp)
  }
}

BOOST_AUTO_TEST_CASE(missing_inertia_entries_are_zero) {
  const Model m = loadWithOneWarning("inertia_missing_entries", {"link 'cube'", "<inertia> has no ixy, ixz, iyz attribute",
                                                                 "read as 0"});
  // The cube welded to the world keeps no inertia; floating, it is the body.
  UrdfOptions floating;
  floating.floating_base = true;
  const Model free = loadUrdf(pattern("inertia_missing_entries"), floating);
  BOOST_TEST((free.inertia(1).inertiaAboutCom() == Vector3(0.002, 0.002, 0.002).asDiagonal().toDenseMatrix()));
  BOOST_TEST(m.nv() == 0);
}

// The contacts say which collision shapes they leave out: per kind, and the bodies without any
// collidable shape. The file's meshes do not exist, so no hull is loaded for them.
BOOST_AUTO_TEST_CASE(uncollided_shapes_are_named) {
  UrdfOptions floating;
  floating.floating_base = true;  // the chassis moves: its shapes count (the world's never touch anything)
  const Model m = loadUrdf(pattern("mesh_collisions"), floating);
  const std::string missed = uncollidedShapes(m);
  BOOST_TEST(contains(missed, "2 of its 3 collision shapes are not collided by the contacts (2 mesh)"), missed);
  BOOST_TEST(contains(missed, "bodies with no collidable shape, which pass through the ground and other bodies: 'arm'"),
             missed);
  // The Simulator warns once when built with ground contacts, and not without them.
  CapturedLog log;
  Simulator quiet(m);
  BOOST_TEST(log.warnings() == 0, log.text.str());
  SimulatorSettings ground;
  ground.ground = true;
  Simulator warned(m, ground);
  log.checkWarnings(1, {"abdyn::Simulator: model 'mesh_collisions': 2 of its 3 collision shapes"});
}

namespace {

std::string patternText(const std::string& name) {
  std::ifstream in(pattern(name));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// `text` with its first `from` replaced by `to` (which must be there).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  BOOST_REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

// Loosely written numbers whose meaning is plain: one warning each, saying how it was read; the model is
// the one of the same file written strictly (compared exactly: the same numbers reach the same code).
BOOST_AUTO_TEST_CASE(loose_numbers_are_read_with_a_warning) {
  CapturedLog log;
  const Model m = loadUrdf(pattern("loose_numbers"));
  log.checkWarnings(4, {"joint 'imu_joint': <origin xyz=\"$(optenv IMU_XYZ 0.19 0 0.149)\">: not URDF's number syntax "
                        "(an unexpanded roslaunch substitution $(optenv IMU_XYZ ...)): its default \"0.19 0 0.149\" is read",
                        "joint 'steer': <origin xyz=\"0.07, 0, -0.69\">: not URDF's number syntax (commas between the "
                        "numbers): read as \"0.07 0 -0.69\"",
                        "joint 'steer': <limit lower=\"-1.57.\">: not URDF's number syntax (a stray '.' after '-1.57')",
                        "joint 'wheel': <origin rpy=\"-3.14159 1.57079 0 0\">: not URDF's number syntax (1 extra zero "
                        "after the 3 numbers)"});
  std::string text = patternText("loose_numbers");
  text = replaced(text, "xyz=\"0.07, 0, -0.69\"", "xyz=\"0.07 0 -0.69\"");
  text = replaced(text, "lower=\"-1.57.\"", "lower=\"-1.57\"");
  text = replaced(text, "rpy=\"-3.14159 1.57079 0 0\"", "rpy=\"-3.14159 1.57079 0\"");
  text = replaced(text, "xyz=\"$(optenv IMU_XYZ 0.19 0 0.149)\"", "xyz=\"0.19 0 0.149\"");
  const Model written_strictly = loadUrdfString(text);
  BOOST_REQUIRE(m.nbodies() == written_strictly.nbodies());
  for (int i = 1; i < m.nbodies(); ++i) {
    BOOST_TEST((m.Xtree(i).E() == written_strictly.Xtree(i).E()));
    BOOST_TEST((m.Xtree(i).r() == written_strictly.Xtree(i).r()));
  }
  BOOST_TEST(m.lowerPositionLimit() == written_strictly.lowerPositionLimit());
  const Frame& imu = m.frame(m.frameId("imu"));
  BOOST_TEST((imu.X_frame_body.r() == written_strictly.frame(written_strictly.frameId("imu")).X_frame_body.r()));
  checkError([] { loadUrdf(pattern("loose_numbers"), strict()); }, {"joint 'steer'", "commas between the numbers", "strict"});

  // What has no plain meaning stays refused, naming the attribute.
  const std::string file = patternText("loose_numbers");
  checkError([&] { loadUrdfString(replaced(file, "rpy=\"-3.14159 1.57079 0 0\"", "rpy=\"-3.14159 1.57079 0 1\"")); },
             {"joint 'wheel'", "rpy=\"-3.14159 1.57079 0 1\"", "expected 3 numbers, found more ('1')"});
  checkError([&] { loadUrdfString(replaced(file, "xyz=\"0.07, 0, -0.69\"", "xyz=\"0.07, 0\"")); },
             {"joint 'steer'", "<origin xyz=\"0.07, 0\">", "'0.07,' is not a number"});
  checkError([&] { loadUrdfString(replaced(file, "lower=\"-1.57.\"", "lower=\"-1.5.7\"")); },
             {"joint 'steer'", "'-1.5.7' is not a number"});
  checkError([&] { loadUrdfString(replaced(file, "IMU_XYZ 0.19 0 0.149", "IMU_XYZ")); }, {"joint 'imu_joint'", "'$(optenv' is not a number"});
}

BOOST_AUTO_TEST_CASE(a_robot_without_a_name_is_named_after_its_file) {
  const Model m = loadWithOneWarning("unnamed_robot", {"<robot> has no name attribute", "named 'unnamed_robot'"});
  BOOST_TEST(m.name() == "unnamed_robot");
  BOOST_TEST(m.nv() == 1);
}

BOOST_AUTO_TEST_CASE(a_link_repeated_verbatim_is_read_once) {
  const Model m = loadWithOneWarning("repeated_link", {"link 'sensor' is defined twice, the same both times",
                                                       "the repeat is ignored"});
  BOOST_TEST(m.nv() == 1);
  BOOST_TEST(m.inertia(m.bodyId("finger")).mass() == 0.05);
  // two different definitions of one link: refused, naming it
  const std::string file = patternText("repeated_link");
  const std::size_t second = file.find("<link name=\"sensor\">", file.find("<link name=\"sensor\">") + 1);
  std::string differing = file;
  differing.replace(differing.find("0.01", second), 4, "0.02");
  checkError([&] { loadUrdfString(differing); }, {"link 'sensor' is defined more than once"});
}
