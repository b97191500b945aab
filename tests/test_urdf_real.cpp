#define BOOST_TEST_MODULE urdf_real
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>


#include "abdyn/algorithms/aba.hpp"
#include "abdyn/algorithms/crba.hpp"
#include "abdyn/error.hpp"
#include "abdyn/io/urdf.hpp"
#include "abdyn/logging.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/data.hpp"
#include "captured_log.hpp"
#include "test_helpers.hpp"

using namespace abdyn;

// The loader rules, each on a small URDF written for it (tests/models/patterns/, every file
// says what it reproduces): the load, the warnings (captured from the library logger), strict mode, the
// repair options, and the loaded dynamics against a hand computation from the file's numbers.
//
// Tolerances: the hand computations add a few products of numbers of order 1 (parallel-axis terms), so
// they agree with the loader to a few roundings, 1e-14 relative; models compared with each other run
// the same operations in the same order, 1e-14 as well.

namespace {

const double kInf = std::numeric_limits<double>::infinity();

std::string pattern(const std::string& name) { return std::string(ABDYN_SOURCE_DIR) + "/tests/models/patterns/" + name + ".urdf"; }

using testing::CapturedLog;
using abdyn::test::checkError;

UrdfOptions strictOptions() {
  UrdfOptions o;
  o.strict = true;
  return o;
}

UrdfOptions floatingBaseIf(bool floating) {
  UrdfOptions o;
  o.floating_base = floating;
  return o;
}

UrdfOptions floatingOptions() {
  UrdfOptions o;
  o.floating_base = true;
  return o;
}

// The rotational inertia about point O of mass m with centre of mass p and inertia Ic about it, all in
// one frame: Ic + m (|p|^2 1 - p p^T) (parallel axes).
Matrix3 aboutOrigin(double m, const Vector3& p, const Matrix3& Ic) {
  return Ic + m * (p.squaredNorm() * Matrix3::Identity() - p * p.transpose());
}

Matrix3 diag(double a, double b, double c) { return Vector3(a, b, c).asDiagonal(); }

// The body's rotational inertia about its own origin, from the model.
Matrix3 modelAboutOrigin(const Model& m, int body) {
  const RigidBodyInertia& I = m.inertia(body);
  return aboutOrigin(I.mass(), I.com(), I.inertiaAboutCom());
}

Eigen::MatrixXd massMatrixAt(const Model& m, const Eigen::VectorXd& q) {
  Data d(m);
  return massMatrix(m, d, q);
}

}  // namespace

// Rule 1: definiteness with a tolerance relative to the scale; numerically zero inertia on a massless
// link is zero.
BOOST_AUTO_TEST_CASE(rounding_level_inertia_is_zero) {
  for (const UrdfOptions& options : {UrdfOptions(), strictOptions()}) {
    CapturedLog log;
    const Model m = loadUrdf(pattern("rounding_inertia"), options);
    BOOST_TEST(log.warnings() == 0, log.text.str());
    const int rod = m.bodyId("rod");
    // The sensor's -1e-22 would change the rod's 3e-6 moments by a rounding at most; that it changes no
    // entry at all shows it was taken as exactly zero.
    BOOST_TEST(m.inertia(rod).mass() == 0.5);
    BOOST_TEST((m.inertia(rod).com() == Vector3(0.1, 0, 0)));
    BOOST_TEST((m.inertia(rod).inertiaAboutCom() == diag(-1.28e-22, 3e-6, 3e-6)));
    // About the z hinge: 3e-6 + m d^2 with d = 0.1.
    BOOST_TEST(massMatrixAt(m, neutral(m))(0, 0) == 3e-6 + 0.5 * 0.01, boost::test_tools::tolerance(1e-14));
  }
  // A massless link whose inertia is zero at the precision of the file (whose largest trace is 0.3)
  // moves nothing: a kinematic model, and strict mode refuses it naming the body and the options.
  const std::string dust = R"(<robot name="r">
      <link name="base"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
      <joint name="spin" type="continuous"><parent link="base"/><child link="dust"/></joint>
      <link name="dust"><inertial><mass value="0"/><inertia ixx="1e-22" ixy="0" ixz="0" iyy="-1e-22" iyz="0" izz="0"/></inertial></link>
      </robot>)";
  BOOST_TEST(!loadUrdfString(dust).hasDynamics());
  checkError([&] { loadUrdfString(dust, strictOptions()); }, "<string>", {"mass matrix is singular", "'dust'", "bound_mass"});
}

// Rule 2: what is checked is the composite of each moving body; a point mass, a thin rod and a massless
// frame welded to the arm are fine.
BOOST_AUTO_TEST_CASE(welded_links_are_checked_as_one_body) {
  CapturedLog log;
  const Model m = loadUrdf(pattern("welded_point_mass"));
  BOOST_TEST(log.warnings() == 0, log.text.str());
  BOOST_TEST_REQUIRE(m.nbodies() == 2);
  // By hand, about the arm's origin (the shoulder): the arm, the payload, the cable turned 90 degrees
  // about z (its axis x becomes y) and the massless imu.
  const Matrix3 Rz90 = (Matrix3() << 0, -1, 0, 1, 0, 0, 0, 0, 1).finished();
  const Matrix3 expected = aboutOrigin(2.0, Vector3(0, 0, -0.25), diag(0.01, 0.01, 0.002)) +
                           aboutOrigin(1.0, Vector3(0, 0, -0.5), Matrix3::Zero()) +
                           aboutOrigin(0.3, Vector3(0.1, 0, -0.3), Rz90 * diag(0, 0.004, 0.004) * Rz90.transpose());
  BOOST_TEST(m.inertia(1).mass() == 3.3, boost::test_tools::tolerance(1e-15));
  ABDYN_CHECK_REL(modelAboutOrigin(m, 1), expected, 1e-14);
  // M of the y hinge is the composite moment about y: 0.135 + 0.25 + 0.03 (the cable's own moment about
  // its axis is zero).
  BOOST_TEST(massMatrixAt(m, neutral(m))(0, 0) == 0.415, boost::test_tools::tolerance(1e-14));

  // A point mass alone on a free joint cannot turn: a kinematic model, refused by strict mode naming
  // the joint and the link.
  const std::string ball = R"(<robot name="r"><link name="ball"><inertial><mass value="1"/>
      <inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial></link></robot>)";
  const Model point = loadUrdfString(ball, floatingOptions());
  BOOST_TEST(!point.hasDynamics());
  BOOST_TEST(point.masslessBodies() == std::vector<int>{1});
  UrdfOptions strict_floating = floatingOptions();
  strict_floating.strict = true;
  checkError([&] { loadUrdfString(ball, strict_floating); }, "<string>", {"joint 'root_joint'", "singular", "'ball'", "bound_inertia"});
}

// Rule 3: triangle-inequality violations load with one warning per link; strict refuses them.
BOOST_AUTO_TEST_CASE(triangle_inequality_is_a_warning) {
  {
    CapturedLog log;
    const Model m = loadUrdf(pattern("triangle_violation"));
    log.checkWarnings(1, {"link 'plate'", "triangle inequality (I1 + I2 >= I3) by 4.76%", "balance_inertia"});
    // Kept as written: M = 0.021 + m d^2.
    BOOST_TEST((m.inertia(1).inertiaAboutCom() == diag(0.01, 0.01, 0.021)));
    BOOST_TEST(massMatrixAt(m, neutral(m))(0, 0) == 0.021 + 1.5 * 0.04, boost::test_tools::tolerance(1e-14));
  }
  checkError([] { loadUrdf(pattern("triangle_violation"), strictOptions()); }, pattern("triangle_violation"),
             {"link 'plate'", "triangle inequality", "strict"});
}

// Rule 4: the repair options. balance_inertia gives a violating link the isotropic inertia of the same
// trace; bound_mass and bound_inertia load a file with massless fingers.
BOOST_AUTO_TEST_CASE(repair_options) {
  {
    UrdfOptions options;
    options.balance_inertia = true;
    options.strict = true;  // repaired, so nothing is left for strict mode to refuse
    CapturedLog log;
    const Model m = loadUrdf(pattern("triangle_violation"), options);
    log.checkWarnings(1, {"rebalanced to 0.0136667 each"});
    const double each = (0.01 + 0.01 + 0.021) / 3.0;
    ABDYN_CHECK_REL(m.inertia(1).inertiaAboutCom(), diag(each, each, each), 1e-15);
    BOOST_TEST(massMatrixAt(m, neutral(m))(0, 0) == each + 1.5 * 0.04, boost::test_tools::tolerance(1e-14));
  }

  // Without the bounds, the fingers make M singular: a kinematic model with one warning naming the
  // massless bodies and the options.
  const std::string fingers = pattern("massless_fingers");
  for (const bool floating : {false, true}) {
    UrdfOptions options;
    options.floating_base = floating;
    CapturedLog log;
    const Model kinematic = loadUrdf(fingers, options);
    BOOST_TEST(!kinematic.hasDynamics());
    log.checkWarnings(1, {"'finger', 'tip'", "bound_mass and bound_inertia"});
  }
  UrdfOptions bounded;
  bounded.bound_mass = 0.01;
  bounded.bound_inertia = 1e-6;
  CapturedLog log;
  const Model m = loadUrdf(fingers, bounded);
  log.checkWarnings(0, {"body 'finger': mass 0 -> 0.01"});
  for (const std::string name : {"finger", "tip"}) {
    const RigidBodyInertia& I = m.inertia(m.bodyId(name));
    BOOST_TEST(I.mass() == 0.01);
    BOOST_TEST((I.com() == Vector3::Zero()));
    ABDYN_CHECK_REL(I.inertiaAboutCom(), diag(1e-6, 1e-6, 1e-6), 0.0);
  }
  // The palm is heavier than both bounds and unchanged.
  BOOST_TEST(m.inertia(0).mass() == 0.0);  // welded to the world
  // M by hand: the finger slides along x carrying two 0.01 kg point-like bodies; the tip turns about y
  // at its own centre of mass, which moves no mass along x: M = diag(0.02, 1e-6).
  Eigen::Matrix2d expected;
  expected << 0.02, 0.0, 0.0, 1e-6;
  ABDYN_CHECK_NEAR(massMatrixAt(m, neutral(m)), expected, 1e-15);
  // The same bounds on the floating hand.
  bounded.floating_base = true;
  BOOST_TEST(loadUrdf(fingers, bounded).nv() == 8);

  // Bounds must be finite and not negative.
  for (const double bad : {-1.0, kInf, std::nan("")}) {
    UrdfOptions o;
    o.bound_mass = bad;
    checkError([&] { loadUrdf(fingers, o); }, fingers, {"UrdfOptions::bound_mass"});
    o = UrdfOptions();
    o.bound_inertia = bad;
    checkError([&] { loadUrdf(fingers, o); }, fingers, {"UrdfOptions::bound_inertia"});
  }
}

// Rule 5: mimics on a fixed joint, or naming a missing or fixed joint, are dropped with a warning.
BOOST_AUTO_TEST_CASE(dangling_mimics_are_dropped) {
  CapturedLog log;
  const Model m = loadUrdf(pattern("mimics"));
  log.checkWarnings(3, {"joint 'orphan': <mimic> names joint 'gripper_motor', which does not exist; the coupling is dropped",
                        "joint 'weld' is fixed but has a <mimic> element, which is ignored",
                        "joint 'after_weld': <mimic> names joint 'weld', which is fixed; the coupling is dropped"});
  // Only the proper coupling reaches the model, which is what every algorithm reads.
  BOOST_TEST_REQUIRE(m.mimics().size() == 1u);
  BOOST_TEST(m.mimics()[0].follower == m.jointId("follower"));
  BOOST_TEST(m.mimics()[0].leader == m.jointId("leader"));
  BOOST_TEST(m.mimics()[0].multiplier == 2.0);
  BOOST_TEST(m.mimics()[0].offset == 0.1);
  checkError([] { loadUrdf(pattern("mimics"), strictOptions()); }, pattern("mimics"), {"'gripper_motor'", "strict"});
}

// Rule 6: what URDF calls invalid in elements that cannot change the model does not refuse the file.
BOOST_AUTO_TEST_CASE(elements_without_dynamics_never_refuse_a_file) {
  for (const bool floating : {false, true}) {
    CapturedLog log;
    const Model m = loadUrdf(pattern("ignored_elements"), floatingBaseIf(floating));
    log.checkWarnings(2, {"link 'base': visual 'base/visual0': its <material> has no name attribute; ignored",
                          "link 'wheel': collision 'wheel/collision0': unknown shape <capsule>",
                          "the shape is dropped (Simulator contacts will not see it)"});
    // The dynamics are the file's: the wheel (and, floating, the base) with their masses.
    BOOST_TEST(m.totalMass() == (floating ? 3.5 : 0.5), boost::test_tools::tolerance(1e-15));
    BOOST_TEST((m.inertia(m.bodyId("wheel")).inertiaAboutCom() == diag(4e-4, 6e-4, 4e-4)));
    // Every other shape stays: the base's box visual and collision, the wheel's cylinder and sphere.
    int collisions = 0, visuals = 0;
    bool sphere = false;
    for (const Geometry& g : m.geometries()) {
      (g.role == GeometryRole::Collision ? collisions : visuals) += 1;
      sphere |= g.link == "wheel" && g.role == GeometryRole::Collision && g.shape == ShapeType::Sphere;
    }
    BOOST_TEST(collisions == 2);
    BOOST_TEST(visuals == 2);
    BOOST_TEST(sphere);
  }
  checkError([] { loadUrdf(pattern("ignored_elements"), strictOptions()); }, pattern("ignored_elements"),
             {"material", "strict"});
  // A shape with numbers abdyn rejects is dropped the same way.
  CapturedLog log;
  const Model m = loadUrdfString(R"(<robot name="r"><link name="base">
      <inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
      <collision><geometry><box size="-1 1 1"/></geometry></collision>
      <collision><geometry><sphere radius="0.5"/></geometry></collision></link></robot>)",
                                 floatingOptions());
  BOOST_TEST(m.geometries().size() == 1u);
  BOOST_TEST(log.has("link 'base': collision 'base/collision0': shape size is negative; the shape is dropped"), log.text.str());
}

// Rule 7: a negative effort or velocity limit is "not given".
BOOST_AUTO_TEST_CASE(negative_limits_are_absent) {
  CapturedLog log;
  const Model m = loadUrdf(pattern("negative_limits"));
  log.checkWarnings(2, {"joint 'elbow': negative effort limit -1 taken as no limit",
                        "joint 'elbow': negative velocity limit -1 taken as no limit"});
  BOOST_TEST(m.effortLimit()[0] == kInf);
  BOOST_TEST(m.velocityLimit()[0] == kInf);
  BOOST_TEST(m.lowerPositionLimit()[0] == -1.5);
  BOOST_TEST(m.upperPositionLimit()[0] == 1.5);
  checkError([] { loadUrdf(pattern("negative_limits"), strictOptions()); }, pattern("negative_limits"),
             {"joint 'elbow': negative effort limit -1", "strict"});
}

// Rule 8: floating_base on a root link named "world" frees the link welded to it: the model is the one
// the file without "world" gives, with the same q and v layout and the same dynamics.
BOOST_AUTO_TEST_CASE(floating_base_over_a_world_root) {
  const Model with_world = loadUrdf(pattern("world_root"), floatingOptions());
  const Model without = loadUrdf(pattern("world_root_free"), floatingOptions());
  BOOST_TEST_REQUIRE(with_world.nbodies() == without.nbodies());
  BOOST_TEST(with_world.nq() == without.nq());
  BOOST_TEST(with_world.nv() == without.nv());
  for (int i = 1; i < with_world.nbodies(); ++i) {
    BOOST_TEST(with_world.bodyName(i) == without.bodyName(i));
    BOOST_TEST(with_world.joint(i).name == without.joint(i).name);
    BOOST_TEST(with_world.joint(i).idx_q == without.joint(i).idx_q);
  }
  BOOST_TEST(with_world.joint(1).name == "root_joint");
  BOOST_TEST((with_world.joint(1).type == JointType::Floating));
  BOOST_TEST(with_world.bodyName(1) == "base");
  BOOST_TEST(with_world.frame(with_world.frameId("mount")).body == 1);
  BOOST_TEST(with_world.totalMass() == 7.5, boost::test_tools::tolerance(1e-15));
  std::mt19937 rng(15);
  Data a(with_world), b(without);
  for (int s = 0; s < 5; ++s) {
    const Eigen::VectorXd q = randomConfiguration(without, rng);
    const Eigen::VectorXd v = Eigen::VectorXd::Random(without.nv());
    const Eigen::VectorXd tau = Eigen::VectorXd::Random(without.nv());
    ABDYN_CHECK_REL(massMatrix(with_world, a, q), massMatrix(without, b, q), 1e-14);
    ABDYN_CHECK_REL(forwardDynamics(with_world, a, q, v, tau), forwardDynamics(without, b, q, v, tau), 1e-14);
  }
  // A "world" holding two links, or holding the robot by a moving joint, cannot be set free.
  checkError([] {
    loadUrdfString(R"(<robot name="r"><link name="world"/>
      <joint name="a" type="fixed"><parent link="world"/><child link="base"/></joint>
      <joint name="b" type="fixed"><parent link="world"/><child link="table"/></joint>
      <link name="base"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
      <link name="table"/></robot>)",
                   floatingOptions());
  }, "<string>", {"floating_base", "root link 'world' has 2 child joints"});
  // With a fixed base the weld holds base 0.5 m up, turned 0.3 rad about z.
  const Model fixed = loadUrdf(pattern("world_root"));
  const Frame& base = fixed.frame(fixed.frameId("base"));
  BOOST_TEST(base.body == 0);
  ABDYN_CHECK_REL(base.X_frame_body.r(), Vector3(0, 0, 0.5), 1e-15);
}

// One file with several patterns at once.
BOOST_AUTO_TEST_CASE(several_patterns_at_once) {
  for (const bool floating : {false, true}) {
    CapturedLog log;
    const Model m = loadUrdf(pattern("several_patterns"), floatingBaseIf(floating));
    BOOST_TEST(log.warnings() == 4, log.text.str());
    for (const std::string f : {"<material>", "joint 'battery_weld' is fixed", "link 'head'", "joint 'neck': negative effort"}) {
      BOOST_TEST(log.has(f), f << " not in " << log.text.str());
    }
    BOOST_TEST(m.mimics().empty());
    if (floating) {
      // The torso and the battery welded to it: 11.5 kg, centre of mass by hand.
      BOOST_TEST(m.bodyName(1) == "torso");
      BOOST_TEST(m.inertia(1).mass() == 11.5, boost::test_tools::tolerance(1e-15));
      ABDYN_CHECK_REL(m.inertia(1).com(), Vector3(-0.15, 0, 0.15) / 11.5, 1e-15);
      ABDYN_CHECK_REL(modelAboutOrigin(m, 1), aboutOrigin(10.0, Vector3::Zero(), diag(0.3, 0.3, 0.2)) +
                                                  aboutOrigin(1.5, Vector3(-0.1, 0, 0.1), Matrix3::Zero()),
                      1e-14);
    } else {
      // The head turns about z through its centre of mass: M = its own moment, 0.0085.
      BOOST_TEST(massMatrixAt(m, neutral(m))(0, 0) == 0.0085, boost::test_tools::tolerance(1e-14));
    }
  }
  checkError([] { loadUrdf(pattern("several_patterns"), strictOptions()); }, pattern("several_patterns"), {"strict"});
}

// Rule 9 and the composite rule's other side: a genuinely indefinite inertia refuses the file when it
// is the body's, and is a warning when a heavy body it is welded to carries it.
BOOST_AUTO_TEST_CASE(indefinite_inertias) {
  const std::string body = pattern("indefinite_body");
  checkError([&] { loadUrdf(body); }, body,
             {"body 'pole' has an invalid inertia", "not positive semi-definite", "principal moments -0.01, 0.01, 0.01",
              "because of link 'pole'", "accept_invalid_inertia"});
  {
    UrdfOptions accept;
    accept.accept_invalid_inertia = true;
    CapturedLog log;
    BOOST_TEST(loadUrdf(body, accept).inertia(1).inertiaAboutCom()(0, 0) == -0.01);
    BOOST_TEST(log.has("accepted (accept_invalid_inertia)"), log.text.str());
  }
  CapturedLog log;
  const Model m = loadUrdf(pattern("indefinite_welded"));
  log.checkWarnings(1, {"link 'bracket': rotational inertia is not positive semi-definite"});
  ABDYN_CHECK_REL(modelAboutOrigin(m, 1), aboutOrigin(5.0, Vector3(0, 0, -0.5), diag(0.1, 0.1, 0.01)) +
                                              aboutOrigin(0.1, Vector3(0, 0, -1), diag(-1e-5, 1e-4, 1e-4)),
                  1e-14);
  checkError([] { loadUrdf(pattern("indefinite_welded"), strictOptions()); }, pattern("indefinite_welded"),
             {"link 'bracket'", "strict"});
}
