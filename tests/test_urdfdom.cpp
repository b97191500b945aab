// The urdfdom door (abdyn/io/urdfdom.hpp): buildModel on urdfdom's parse of a file is loadUrdf of the
// file, on every URDF file of the repository (bundled models, the pattern files, the benchmark and
// viewer models the other tests use), fixed and floating; the same refusals with the same messages;
// the loop closures urdfdom drops; the edit-then-build pattern; edited models that urdfdom would never
// produce (null pointers, unknown types, non-finite numbers, quaternions without a short rpy).
#define BOOST_TEST_MODULE urdfdom
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>
#include <tinyxml2.h>
#include <urdf_parser/urdf_parser.h>

#include "abdyn/algorithms/rnea.hpp"
#include "abdyn/constraints/loop_closure.hpp"
#include "abdyn/error.hpp"
#include "abdyn/io/urdf.hpp"
#include "abdyn/io/urdf_export.hpp"
#include "abdyn/io/urdf_loops.hpp"
#include "abdyn/io/urdfdom.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/data.hpp"
#include "model_compare.hpp"
#include "test_helpers.hpp"

namespace fs = std::filesystem;
using abdyn::Model;
using abdyn::UrdfOptions;

namespace {

const std::string kRoot = ABDYN_SOURCE_DIR;

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Every URDF file of the repository that abdyn's tests load. fuzz/regressions/ holds hostile files
// (nesting thousands deep) that abdyn refuses before any parser sees them and that would overflow
// urdfdom's recursive TinyXML parser: they are not given to urdfdom.
std::vector<std::string> repositoryUrdfs() {
  return abdyn::test::urdfFilesUnder({"models", "tests/models", "tests/viewer", "bench/models"});
}

// The message of an abdyn::Error without its source prefix ("<path>: " or "<urdfdom model 'x'>: ").
std::string reason(const std::string& message) {
  const std::size_t colon = message.find(": ");
  return colon == std::string::npos ? message : message.substr(colon + 2);
}

struct Outcome {
  std::optional<Model> model;
  std::string error;  // the reason, when refused
};

template <class Load>
Outcome attempt(Load&& load) {
  try {
    return Outcome{load(), ""};
  } catch (const abdyn::Error& e) {
    return Outcome{std::nullopt, reason(e.what())};
  }
}

std::shared_ptr<urdf::ModelInterface> parse(const std::string& xml) { return urdf::parseURDF(xml); }

// tau = ID(q, v, a) of both models at a seeded random state agrees joint by joint (found by name) to
// 1e-14 relative to |tau|.
void checkSameDynamics(const Model& built, const Model& expected, const std::string& what) {
  std::mt19937 rng(33);
  std::normal_distribution<double> normal(0.0, 1.0);
  abdyn::Data d1(built), d2(expected);
  const Eigen::VectorXd q = abdyn::randomConfiguration(expected, rng);
  Eigen::VectorXd v(expected.nv()), a(expected.nv());
  for (int k = 0; k < expected.nv(); ++k) {
    v[k] = normal(rng);
    a[k] = normal(rng);
  }
  Eigen::VectorXd q_built(built.nq());
  for (int i = 1; i < expected.nbodies(); ++i) {
    const abdyn::Joint& j = expected.joint(i);
    q_built.segment(built.joint(j.name).idx_q, j.nq) = q.segment(j.idx_q, j.nq);
  }
  const Eigen::VectorXd tau_built = abdyn::inverseDynamics(built, d1, q_built, v, a);
  const Eigen::VectorXd tau = abdyn::inverseDynamics(expected, d2, q, v, a);
  for (int i = 1; i < expected.nbodies(); ++i) {
    const abdyn::Joint& j = expected.joint(i);
    const abdyn::Joint& jb = built.joint(j.name);
    BOOST_TEST((tau_built.segment(jb.idx_v, j.nv) - tau.segment(j.idx_v, j.nv)).norm() <= 1e-14 * tau.norm(), what << ": " << j.name);
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_repository_file_builds_as_loadUrdf_loads_it) {
  // The files where urdfdom differs from abdyn's reader, and why (urdfdom's own rules): stated here so
  // that a change in either reader shows.
  // Angles written with 16 or 17 digits where a shorter decimal gives urdfdom the same quaternion
  // (pi/2 as 1.5707963267948966; the generated benchmark trees' random angles): the rpy cannot be told from the
  // quaternion, and placements and inertias agree to rounding, 1e-15 relative (a few units in the last
  // place of a rotation matrix entry); the dynamics are compared too.
  const std::set<std::string> rounded = {
      "bench/models/panda.urdf",       "bench/models/chain_7.urdf",    "bench/models/chain_30.urdf",
      "bench/models/chain_100.urdf",   "bench/models/chain_1000.urdf", "bench/models/tree_7.urdf",
      "bench/models/tree_30.urdf",     "bench/models/tree_100.urdf",   "bench/models/tree_1000.urdf",
      "tests/models/patterns/welded_point_mass.urdf",
  };
  // Shapes urdfdom drops (logging an error) where abdyn keeps them or numbers them otherwise: a
  // <collision> with a shape neither knows (a capsule; abdyn drops it too, but urdfdom then numbers
  // the link's other unnamed shapes from 0), a <visual> whose <material> has no name (abdyn keeps
  // the shape and ignores the material). Everything but geometry is compared.
  const std::set<std::string> drops_shapes = {"tests/models/patterns/ignored_elements.urdf",
                                              "tests/models/patterns/several_patterns.urdf"};
  // Files abdyn reads with a warning that urdfdom 3.0.1 refuses or reads otherwise (it logs an error): a
  // <limit> without effort, a revolute or prismatic joint without <limit>, a joint whose parent is an undefined
  // link 'world', a joint of type "spherical" (not a URDF type) and numbers written loosely ("1.57.",
  // "0, 0, 1"), a link written twice and a robot without a name: urdfdom refuses the file;
  // an <inertia> with missing entries: urdfdom drops the <inertial>; a xacro source: both refuse it,
  // abdyn saying how to expand it. A user of buildModel gets urdfdom's reading of them, not abdyn's.
  const std::set<std::string> urdfdom_differs = {"tests/models/patterns/limit_without_effort.urdf",
                                                 "tests/models/patterns/loose_numbers.urdf",
                                                 "tests/models/patterns/repeated_link.urdf",
                                                 "tests/models/patterns/unnamed_robot.urdf",
                                                 "tests/models/patterns/inertia_missing_entries.urdf",
                                                 "tests/models/patterns/joints_without_limit.urdf",
                                                 "tests/models/patterns/world_parent_undefined.urdf",
                                                 "tests/models/patterns/spherical_joint.urdf",
                                                 "tests/models/patterns/xacro_source.urdf"};
  int exact = 0, to_rounding = 0;
  for (const std::string& file : repositoryUrdfs()) {
    const std::string name = fs::relative(file, kRoot).string();
    if (urdfdom_differs.count(name)) continue;
    const std::shared_ptr<urdf::ModelInterface> urdf = urdf::parseURDFFile(file);
    BOOST_TEST_REQUIRE(urdf != nullptr, name << ": urdfdom refuses it");
    for (const bool floating : {false, true}) {
      UrdfOptions options;
      options.floating_base = floating;
      const std::string what = name + (floating ? " (floating)" : " (fixed)");
      const Outcome expected = attempt([&] { return abdyn::loadUrdf(file, options); });
      const Outcome built = attempt([&] { return abdyn::buildModel(*urdf, options); });
      BOOST_TEST_CONTEXT(what) {
        BOOST_TEST(built.model.has_value() == expected.model.has_value());
        BOOST_TEST(built.error == expected.error);
        if (!built.model || !expected.model) continue;
        const bool exactly = rounded.count(name) == 0;
        abdyn::test::checkSameModel(*built.model, *expected.model, exactly ? 0.0 : 1e-15, what, drops_shapes.count(name) == 0);
        if (exactly) {
          ++exact;
        } else {
          checkSameDynamics(*built.model, *expected.model, what);
          ++to_rounding;
        }
      }
    }
  }
  BOOST_TEST(exact >= 40);
  BOOST_TEST_MESSAGE(exact << " models built from urdfdom equal loadUrdf's bit for bit, " << to_rounding << " to rounding");
}

// urdfdom keeps no <loop_joint>: the closures come from the same XML, against the model built from
// urdfdom's; mimic couplings are in the model itself.
BOOST_AUTO_TEST_CASE(loop_closures_come_from_the_xml) {
  for (const char* name : {"models/four_bar.urdf", "models/slider_crank.urdf", "tests/models/patterns/mimics.urdf"}) {
    const std::string file = kRoot + "/" + name;
    const std::string xml = readText(file);
    const Model expected = abdyn::loadUrdf(file);
    const Model built = abdyn::buildModel(*parse(xml));
    const abdyn::ConstraintSet from_file = abdyn::loadUrdfLoops(file, expected);
    const abdyn::ConstraintSet from_xml = abdyn::loadUrdfLoopsString(xml, built);
    BOOST_TEST_REQUIRE(from_xml.loops.size() == from_file.loops.size(), name);
    for (std::size_t k = 0; k < from_file.loops.size(); ++k) {
      BOOST_TEST(from_xml.loops[k].name == from_file.loops[k].name);
      BOOST_TEST(from_xml.loops[k].body_a == from_file.loops[k].body_a);
      BOOST_TEST(from_xml.loops[k].body_b == from_file.loops[k].body_b);
      BOOST_TEST((from_xml.loops[k].p_a == from_file.loops[k].p_a));
      BOOST_TEST((from_xml.loops[k].p_b == from_file.loops[k].p_b));
    }
    const abdyn::ConstraintSet mimics = abdyn::ConstraintSet::fromMimics(built);
    BOOST_TEST(mimics.couplings.size() == from_file.couplings.size(), name);
  }
  // The four-bar's closure is a <loop_joint>, which urdfdom does not keep.
  BOOST_TEST(!abdyn::loadUrdfLoops(kRoot + "/models/four_bar.urdf", abdyn::loadUrdf(kRoot + "/models/four_bar.urdf")).loops.empty());
}

// The ROS pattern: parse the robot_description, set the joints a controller does not move to fixed,
// build. The same as loading the file with those joints made fixed in the XML.
BOOST_AUTO_TEST_CASE(edit_then_build) {
  const std::string file = kRoot + "/models/humanoid.urdf";
  const std::string xml = readText(file);
  const std::shared_ptr<urdf::ModelInterface> urdf = parse(xml);
  BOOST_TEST_REQUIRE(urdf != nullptr);
  std::vector<std::string> locked;
  for (const auto& [name, joint] : urdf->joints_) {
    if (joint->type != urdf::Joint::FIXED && (name.find("arm") != std::string::npos || name.find("shoulder") != std::string::npos ||
                                              name.find("elbow") != std::string::npos)) {
      locked.push_back(name);
      joint->type = urdf::Joint::FIXED;
    }
  }
  BOOST_TEST_REQUIRE(!locked.empty());

  tinyxml2::XMLDocument doc;
  BOOST_TEST_REQUIRE(doc.Parse(xml.c_str()) == tinyxml2::XML_SUCCESS);
  for (tinyxml2::XMLElement* j = doc.RootElement()->FirstChildElement("joint"); j; j = j->NextSiblingElement("joint")) {
    if (std::count(locked.begin(), locked.end(), j->Attribute("name"))) j->SetAttribute("type", "fixed");
  }
  tinyxml2::XMLPrinter printer;
  doc.Print(&printer);
  for (const bool floating : {false, true}) {
    UrdfOptions options;
    options.floating_base = floating;
    const Model expected = abdyn::loadUrdfString(printer.CStr(), options);
    const Model built = abdyn::buildModel(*urdf, options);
    abdyn::test::checkSameModel(built, expected, 0.0, floating ? "edited, floating" : "edited, fixed");
    BOOST_TEST(built.nv() + static_cast<int>(locked.size()) == abdyn::loadUrdf(file, options).nv());
  }
}

// An orientation set in code has no short rpy: the quaternion itself places the frame, and the model
// agrees with the one built from the rpy urdfdom reports (to rounding) and has the same dynamics.
BOOST_AUTO_TEST_CASE(quaternions_set_in_code) {
  const std::string file = kRoot + "/models/iiwa7.urdf";
  const std::shared_ptr<urdf::ModelInterface> urdf = urdf::parseURDFFile(file);
  BOOST_TEST_REQUIRE(urdf != nullptr);
  const Model original = abdyn::loadUrdf(file);
  for (auto& [name, joint] : urdf->joints_) {
    urdf::Rotation& q = joint->parent_to_joint_origin_transform.rotation;
    // the same rotation to rounding, but not a quaternion urdfdom makes from any rpy of the file
    q.setFromQuaternion(std::nextafter(q.x, 2.0), q.y, q.z, q.w);
  }
  const Model built = abdyn::buildModel(*urdf);
  abdyn::test::checkSameModel(built, original, 1e-15, "quaternion placements");
  checkSameDynamics(built, original, "quaternion placements");
}

BOOST_AUTO_TEST_CASE(edited_models_that_cannot_be_built) {
  const std::string xml = readText(kRoot + "/models/double_pendulum.urdf");
  const auto refuses = [](const urdf::ModelInterface& urdf, const std::string& expected) {
    try {
      abdyn::buildModel(urdf);
      BOOST_ERROR("buildModel accepted a model with " << expected);
    } catch (const abdyn::Error& e) {
      const std::string message = e.what();
      BOOST_TEST(message.rfind("<urdfdom model '", 0) == 0u, message);
      BOOST_TEST(message.find(expected) != std::string::npos, message);
    }
  };
  std::shared_ptr<urdf::ModelInterface> urdf = parse(xml);
  const std::string joint = urdf->joints_.begin()->first;
  const std::string link = urdf->joints_.begin()->second->child_link_name;

  urdf = parse(xml);
  urdf->joints_.begin()->second.reset();
  refuses(*urdf, "joint '" + joint + "' is a null pointer");

  urdf = parse(xml);
  urdf->links_[link].reset();
  refuses(*urdf, "link '" + link + "' is a null pointer");

  urdf = parse(xml);
  urdf->joints_.begin()->second->type = urdf::Joint::UNKNOWN;
  refuses(*urdf, "joint '" + joint + "' has an unknown type");

  urdf = parse(xml);
  urdf->joints_.begin()->second->parent_to_joint_origin_transform.position.y = std::nan("");
  refuses(*urdf, "joint '" + joint + "': <origin xyz> is not finite");

  urdf = parse(xml);
  urdf->joints_.begin()->second->type = urdf::Joint::REVOLUTE;
  urdf->joints_.begin()->second->limits.reset();
  refuses(*urdf, "joint '" + joint + "': a revolute or prismatic joint needs limits");

  urdf = parse(xml);
  urdf->links_[link]->inertial->mass = -1.0;
  refuses(*urdf, "link '" + link + "'");  // the reader's rule: negative mass

  urdf = parse(xml);
  urdf->joints_.begin()->second->child_link_name = "nowhere";
  refuses(*urdf, "refers to child link 'nowhere', which does not exist");  // the reader's tree rule

  // A visual without geometry is the reader's unreadable shape: dropped with a warning, refused under strict.
  urdf = parse(xml);
  const auto visual = std::make_shared<urdf::Visual>();
  urdf->links_[link]->visual_array.push_back(visual);
  const Model model = abdyn::buildModel(*urdf);
  BOOST_TEST(model.geometries().size() == abdyn::loadUrdfString(xml).geometries().size());
  UrdfOptions strict;
  strict.strict = true;
  BOOST_CHECK_THROW(abdyn::buildModel(*urdf, strict), abdyn::Error);
}

// What saveUrdf writes, urdfdom reads as the same model: every bundled model, fixed and floating.
// Orientations are written with 17 digits, so urdfdom's quaternions may not give the rpy back (see
// every_repository_file_builds_as_loadUrdf_loads_it): placements agree to rounding, 1e-15 relative.
BOOST_AUTO_TEST_CASE(urdfdom_reads_saved_files) {
  for (const auto& entry : fs::directory_iterator(kRoot + "/models")) {
    if (entry.path().extension() != ".urdf") continue;
    for (const bool floating : {false, true}) {
      UrdfOptions options;
      options.floating_base = floating;
      const Outcome loaded = attempt([&] { return abdyn::loadUrdf(entry.path().string(), options); });
      if (!loaded.model) continue;  // a model that cannot float (a pendulum's massless base)
      const Model& model = *loaded.model;
      const std::shared_ptr<urdf::ModelInterface> urdf = parse(abdyn::saveUrdfString(model));
      BOOST_TEST_REQUIRE(urdf != nullptr, entry.path());
      const std::string what = entry.path().filename().string() + (floating ? " (floating)" : " (fixed)");
      const Model back = abdyn::buildModel(*urdf);
      abdyn::test::checkSameModel(back, model, 1e-15, what);
      if (model.hasDynamics()) checkSameDynamics(back, model, what);  // a kinematic model has no dynamics to compare
    }
  }
}
