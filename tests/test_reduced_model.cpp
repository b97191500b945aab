// buildReducedModel (abdyn/model/reduced_model.hpp): welding joints equals loading the URDF with those
// joints made fixed at the same positions, on the bundled humanoid (fixed and floating) and the floating
// quadruped; the reduced model's inverse dynamics are the full model's rows for the free joints with the
// locked ones held; mimic couplings that would lose a coordinate and bad arguments are refused; loop
// closures and couplings follow their bodies (reduceConstraints).
#define BOOST_TEST_MODULE reduced_model
#include <cmath>
#include <cstdio>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <boost/test/unit_test.hpp>
#include <tinyxml2.h>

#include "abdyn/algorithms/kinematics.hpp"
#include "abdyn/algorithms/rnea.hpp"
#include "abdyn/constraints/reduced_constraints.hpp"
#include "abdyn/io/urdf_loops.hpp"
#include "abdyn/error.hpp"
#include "abdyn/io/urdf.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/data.hpp"
#include "abdyn/model/reduced_model.hpp"
#include "abdyn/spatial/euler.hpp"
#include "model_compare.hpp"
#include "test_helpers.hpp"

using abdyn::Model;
using abdyn::UrdfOptions;

namespace {

const std::string kRoot = ABDYN_SOURCE_DIR;

std::string number(double x) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", x);
  return text;
}

std::string triple(const abdyn::Vector3& v) { return number(v.x()) + " " + number(v.y()) + " " + number(v.z()); }

// The URDF file with each joint of `locked` (one-DoF revolute or prismatic) made fixed where its
// coordinate is q_joint: its <origin> becomes the child frame's pose at that coordinate, written by an
// independent route (rpy and axis-angle composition here, not abdyn's joint transforms).
std::string weldedUrdf(const std::string& file, const Model& model, const std::vector<std::string>& locked, const Eigen::VectorXd& q) {
  tinyxml2::XMLDocument doc;
  BOOST_TEST_REQUIRE(doc.LoadFile(file.c_str()) == tinyxml2::XML_SUCCESS);
  for (tinyxml2::XMLElement* e = doc.RootElement()->FirstChildElement("joint"); e; e = e->NextSiblingElement("joint")) {
    const std::string name = e->Attribute("name");
    if (std::find(locked.begin(), locked.end(), name) == locked.end()) continue;
    const std::string type = e->Attribute("type");
    const double x = q[model.joint(name).idx_q];
    tinyxml2::XMLElement* origin = e->FirstChildElement("origin");
    if (origin == nullptr) {
      origin = doc.NewElement("origin");
      e->InsertFirstChild(origin);
    }
    abdyn::Vector3 xyz = abdyn::Vector3::Zero(), rpy = abdyn::Vector3::Zero();
    if (const char* s = origin->Attribute("xyz")) std::sscanf(s, "%lf %lf %lf", &xyz.x(), &xyz.y(), &xyz.z());
    if (const char* s = origin->Attribute("rpy")) std::sscanf(s, "%lf %lf %lf", &rpy.x(), &rpy.y(), &rpy.z());
    abdyn::Vector3 axis = abdyn::Vector3::UnitX();
    if (const tinyxml2::XMLElement* a = e->FirstChildElement("axis")) std::sscanf(a->Attribute("xyz"), "%lf %lf %lf", &axis.x(), &axis.y(), &axis.z());
    axis.normalize();
    const abdyn::Matrix3 R = abdyn::rpyToMatrix(rpy);
    if (type == "prismatic") {
      xyz += R * axis * x;
    } else {
      rpy = abdyn::matrixToRpy(R * Eigen::AngleAxisd(x, axis).toRotationMatrix());
    }
    origin->SetAttribute("xyz", triple(xyz).c_str());
    origin->SetAttribute("rpy", triple(rpy).c_str());
    e->SetAttribute("type", "fixed");
  }
  tinyxml2::XMLPrinter printer;
  doc.Print(&printer);
  return printer.CStr();
}

// tau = ID(q, v, a) of the full model, with the locked joints at q_reference and at rest, restricted to
// the free joints, equals the reduced model's (joints found by name), to 1e-12 relative to |tau|.
void checkDynamics(const Model& full, const Model& reduced, const Eigen::VectorXd& q_reference, std::mt19937& rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::VectorXd q = q_reference, v = Eigen::VectorXd::Zero(full.nv()), a = Eigen::VectorXd::Zero(full.nv());
  Eigen::VectorXd q_r(reduced.nq()), v_r(reduced.nv()), a_r(reduced.nv());
  const Eigen::VectorXd q_random = abdyn::randomConfiguration(full, rng);
  for (int i = 1; i < reduced.nbodies(); ++i) {
    const abdyn::Joint& jr = reduced.joint(i);
    const abdyn::Joint& j = full.joint(jr.name);
    q.segment(j.idx_q, j.nq) = q_random.segment(j.idx_q, j.nq);
    for (int k = 0; k < j.nv; ++k) {
      v[j.idx_v + k] = normal(rng);
      a[j.idx_v + k] = normal(rng);
    }
    q_r.segment(jr.idx_q, jr.nq) = q.segment(j.idx_q, j.nq);
    v_r.segment(jr.idx_v, jr.nv) = v.segment(j.idx_v, j.nv);
    a_r.segment(jr.idx_v, jr.nv) = a.segment(j.idx_v, j.nv);
  }
  abdyn::Data d(full), d_r(reduced);
  const Eigen::VectorXd tau = abdyn::inverseDynamics(full, d, q, v, a);
  const Eigen::VectorXd tau_r = abdyn::inverseDynamics(reduced, d_r, q_r, v_r, a_r);
  for (int i = 1; i < reduced.nbodies(); ++i) {
    const abdyn::Joint& jr = reduced.joint(i);
    const abdyn::Joint& j = full.joint(jr.name);
    BOOST_TEST((tau_r.segment(jr.idx_v, jr.nv) - tau.segment(j.idx_v, j.nv)).norm() <= 1e-12 * tau.norm(), jr.name);
  }
}

void checkReduction(const std::string& file, bool floating, const std::vector<std::string>& locked, unsigned seed) {
  UrdfOptions options;
  options.floating_base = floating;
  const Model full = abdyn::loadUrdf(file, options);
  std::mt19937 rng(seed);
  // At the neutral configuration (the URDF edit is only type="fixed") and at a random one.
  for (const bool neutral : {true, false}) {
    const Eigen::VectorXd q_reference = neutral ? abdyn::neutral(full) : abdyn::randomConfiguration(full, rng);
    const Model reduced = abdyn::buildReducedModel(full, locked, q_reference);
    BOOST_TEST(reduced.nv() == full.nv() - static_cast<int>(locked.size()));
    const Model welded = abdyn::loadUrdfString(weldedUrdf(file, full, locked, q_reference), options);
    // Placements through rpy printed with 17 digits, inertias summed in another order: 1e-12.
    abdyn::test::checkSameModel(reduced, welded, 1e-12, file + (neutral ? " at neutral" : " at a random q"));
    checkDynamics(full, reduced, q_reference, rng);
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(humanoid_arms_locked) {
  const std::vector<std::string> arms = {"left_shoulder_pitch",  "left_shoulder_roll", "left_shoulder_yaw", "left_elbow",
                                         "left_wrist_yaw",       "left_wrist_pitch",   "left_wrist_roll",   "right_shoulder_pitch",
                                         "right_shoulder_roll",  "right_shoulder_yaw", "right_elbow",       "right_wrist_yaw",
                                         "right_wrist_pitch",    "right_wrist_roll",   "waist_yaw"};
  checkReduction(kRoot + "/models/humanoid.urdf", false, arms, 1);
  checkReduction(kRoot + "/models/humanoid.urdf", true, arms, 2);
}

BOOST_AUTO_TEST_CASE(floating_quadruped_legs_locked) {
  // Two legs and one knee: the trunk stays floating.
  checkReduction(kRoot + "/models/quadruped.urdf", true,
                 {"FL_hip_abad", "FL_hip_flex", "FL_knee", "HR_hip_abad", "HR_hip_flex", "HR_knee", "FR_knee"}, 3);
}

// Locking the floating root: the trunk is welded to the world at its reference pose, and its inertia goes
// (as a link welded to the world's does); the legs hang from the world.
BOOST_AUTO_TEST_CASE(floating_root_locked) {
  UrdfOptions options;
  options.floating_base = true;
  const Model full = abdyn::loadUrdf(kRoot + "/models/quadruped.urdf", options);
  std::mt19937 rng(4);
  const Eigen::VectorXd q_reference = abdyn::randomConfiguration(full, rng);
  const Model reduced = abdyn::buildReducedModel(full, {"root_joint"}, q_reference);
  BOOST_TEST(reduced.nv() == full.nv() - 6);
  BOOST_TEST(reduced.frame(reduced.frameId(full.bodyName(1))).body == 0);
  checkDynamics(full, reduced, q_reference, rng);
  // Nothing locked: the same model.
  abdyn::test::checkSameModel(abdyn::buildReducedModel(full, {}, q_reference), full, 0.0, "nothing locked");
}

BOOST_AUTO_TEST_CASE(mimic_couplings) {
  const Model full = abdyn::loadUrdf(kRoot + "/tests/models/patterns/mimics.urdf");
  BOOST_TEST_REQUIRE(!full.mimics().empty());
  const abdyn::MimicCoupling& c = full.mimics().front();
  const std::string follower = full.joint(c.follower).name, leader = full.joint(c.leader).name;
  const Eigen::VectorXd q0 = abdyn::neutral(full);
  for (const std::string& alone : {follower, leader}) {
    try {
      abdyn::buildReducedModel(full, {alone}, q0);
      BOOST_ERROR("locking only '" << alone << "' of a mimic pair was accepted");
    } catch (const abdyn::Error& e) {
      BOOST_TEST(std::string(e.what()).find("lock both joints or neither") != std::string::npos, e.what());
    }
  }
  // Both locked where q satisfies the coupling: it is dropped.
  Eigen::VectorXd q = q0;
  q[full.joint(leader).idx_q] = 0.2;
  q[full.joint(follower).idx_q] = c.multiplier * 0.2 + c.offset;
  const Model reduced = abdyn::buildReducedModel(full, {follower, leader}, q);
  BOOST_TEST(reduced.mimics().size() + 1 == full.mimics().size());
  // ... and refused where it does not.
  q[full.joint(follower).idx_q] += 0.1;
  BOOST_CHECK_THROW(abdyn::buildReducedModel(full, {follower, leader}, q), abdyn::Error);
}

BOOST_AUTO_TEST_CASE(bad_arguments) {
  const Model full = abdyn::loadUrdf(kRoot + "/models/double_pendulum.urdf");
  const Eigen::VectorXd q0 = abdyn::neutral(full);
  const std::string joint = full.joint(1).name;
  const auto refused = [&](const std::vector<std::string>& locked, const Eigen::VectorXd& q, const std::string& expected) {
    try {
      abdyn::buildReducedModel(full, locked, q);
      BOOST_ERROR("accepted: " << expected);
    } catch (const abdyn::InvalidArgument& e) {
      BOOST_TEST(std::string(e.what()).find(expected) != std::string::npos, e.what());
    }
  };
  refused({"no_such_joint"}, q0, "no joint named 'no_such_joint'");
  refused({joint, joint}, q0, "names joint '" + joint + "' twice");
  refused({joint}, Eigen::VectorXd::Zero(full.nq() + 1), "q_reference has " + std::to_string(full.nq() + 1) + " entries");
  Eigen::VectorXd nan = q0;
  nan[0] = std::nan("");
  refused({joint}, nan, "non-finite");
  // Locking every joint leaves no moving body: a model with nv = 0.
  std::vector<std::string> all;
  for (int i = 1; i < full.nbodies(); ++i) all.push_back(full.joint(i).name);
  BOOST_TEST(abdyn::buildReducedModel(full, all, q0).nv() == 0);
}

// Loop closures follow their bodies: at any configuration with the locked joints at q_reference, each
// closure frame is at the same world pose in both models (forward kinematics, to 1e-12).
BOOST_AUTO_TEST_CASE(loop_closures_carried_over) {
  const std::string file = kRoot + "/models/four_bar.urdf";
  const Model full = abdyn::loadUrdf(file);
  const abdyn::ConstraintSet loops = abdyn::loadUrdfLoops(file, full);
  BOOST_TEST_REQUIRE(loops.loops.size() == 1u);
  Eigen::VectorXd q_reference = abdyn::neutral(full);
  q_reference[full.joint("coupler").idx_q] = 0.7;
  const Model reduced = abdyn::buildReducedModel(full, {"coupler"}, q_reference);
  const abdyn::ConstraintSet moved = abdyn::reduceConstraints(loops, full, reduced);
  BOOST_TEST_REQUIRE(moved.loops.size() == 1u);
  std::mt19937 rng(6);
  Eigen::VectorXd q = abdyn::randomConfiguration(full, rng);
  q[full.joint("coupler").idx_q] = 0.7;
  Eigen::VectorXd q_r(reduced.nq());
  for (int i = 1; i < reduced.nbodies(); ++i) q_r[reduced.joint(i).idx_q] = q[full.joint(reduced.joint(i).name).idx_q];
  abdyn::Data d(full), d_r(reduced);
  abdyn::forwardKinematics(full, d, q);
  abdyn::forwardKinematics(reduced, d_r, q_r);
  // World pose of a frame (R, p in body coordinates) on a body: R_0 = E^T R, p_0 = E^T p + r.
  const auto world = [](const abdyn::Plx& X_body_world, const abdyn::Matrix3& R, const abdyn::Vector3& p) {
    return std::make_pair(abdyn::Matrix3(X_body_world.E().transpose() * R), abdyn::Vector3(X_body_world.E().transpose() * p + X_body_world.r()));
  };
  const abdyn::LoopClosure& c = loops.loops[0];
  const abdyn::LoopClosure& m = moved.loops[0];
  for (const bool a : {true, false}) {
    const auto [R, p] = a ? world(d.X_body_world[c.body_a], c.R_a, c.p_a) : world(d.X_body_world[c.body_b], c.R_b, c.p_b);
    const auto [R_r, p_r] = a ? world(d_r.X_body_world[m.body_a], m.R_a, m.p_a) : world(d_r.X_body_world[m.body_b], m.R_b, m.p_b);
    ABDYN_CHECK_REL(R_r, R, 1e-12);
    ABDYN_CHECK_REL(p_r, p, 1e-12);
  }
  // Welding everything puts both ends on the world: the loop closes nothing and is refused.
  const Model welded = abdyn::buildReducedModel(full, {"crank", "coupler", "rocker"}, q_reference);
  BOOST_CHECK_EXCEPTION(abdyn::reduceConstraints(loops, full, welded), abdyn::Error, [](const abdyn::Error& e) {
    return std::string(e.what()).find("loop joint 'pin'") != std::string::npos &&
           std::string(e.what()).find("closes nothing") != std::string::npos;
  });
  // Couplings: re-indexed when both joints stay, refused when only one is locked.
  const Model mimics = abdyn::loadUrdf(kRoot + "/tests/models/patterns/mimics.urdf");
  const abdyn::ConstraintSet couplings = abdyn::ConstraintSet::fromMimics(mimics);
  BOOST_TEST_REQUIRE(!couplings.couplings.empty());
  const abdyn::ConstraintSet same = abdyn::reduceConstraints(couplings, mimics, abdyn::buildReducedModel(mimics, {}, abdyn::neutral(mimics)));
  BOOST_TEST(same.couplings.size() == couplings.couplings.size());
}
