// Row joints (row_joints.cpp): ball, hinge, slider, fixed and distance joints between two bodies, their
// position errors and the ball joint's swing and twist limits.
#include <boost/test/unit_test.hpp>

#include <Eigen/LU>

#include <cmath>
#include <random>

#include "abdyn/algorithms/jacobian.hpp"
#include "abdyn/algorithms/kinematics.hpp"
#include "abdyn/constraints/row_joints.hpp"
#include "abdyn/constraints/rows.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/model_builder.hpp"
#include "abdyn/model/random_model.hpp"
#include "floating_box.hpp"
#include "test_helpers.hpp"

using namespace abdyn;
using namespace abdyn::test;

// Each joint's position error is the stated C: a configuration that satisfies the joint gives C = 0, and
// its rows' J lies in the constraint's velocity: moving along any v with J v = 0 keeps C at O(eps^2).
BOOST_AUTO_TEST_CASE(joint_errors_vanish_when_satisfied) {
  std::mt19937 rng(24);
  const Model model = randomTree({4, false, true, false, false}, rng);
  Data data(model);
  const Eigen::VectorXd q = randomConfiguration(model, rng);
  forwardKinematics(model, data, q);
  jointJacobians(model, data);
  for (RowJointType type : {RowJointType::Ball, RowJointType::Hinge, RowJointType::Slider, RowJointType::Fixed,
                            RowJointType::Distance}) {
    // Body 3's frame, expressed as a frame on body 2 where they coincide now.
    const Plx X_frame_a = Plx(randomRotation(rng), randomVector3(rng));
    const Plx X_frame_b = X_frame_a * data.X_body_world[3] * data.X_body_world[2].inverse();
    RowJoint joint{type, 3, 2, X_frame_a, X_frame_b, 0.0};
    if (type == RowJointType::Distance) joint.X_frame_b = Plx::translation(Vector3(0.3, 0, 0)), joint.length = 0.0;
    RowSet rows(model);
    addRowJoint(rows, model, data, joint, 0.2, 0.0, 0.01, 0);
    const double length = type == RowJointType::Distance ? rows[0].error : 0.0;
    for (int r = 0; r < rows.size(); ++r) {
      if (type != RowJointType::Distance) BOOST_TEST(std::abs(rows[r].error) < 1e-12);
    }
    // A velocity in the null space of all rows keeps every error at O(eps^2).
    Eigen::MatrixXd J(rows.size(), model.nv());
    for (int r = 0; r < rows.size(); ++r) J.row(r) = rows[r].J.transpose();
    const Eigen::MatrixXd null_space = J.fullPivLu().kernel();
    BOOST_REQUIRE(null_space.cols() > 0);
    const Eigen::VectorXd v = null_space * Eigen::VectorXd::Random(null_space.cols());
    const double eps = 1e-5;
    const Eigen::VectorXd q_moved = integrate(model, q, v.normalized(), eps);
    forwardKinematics(model, data, q_moved);
    jointJacobians(model, data);
    joint.length = length;
    RowSet moved(model);
    addRowJoint(moved, model, data, joint, 0.2, 0.0, 0.01, 0);
    for (int r = 0; r < moved.size(); ++r) BOOST_TEST(std::abs(moved[r].error) < 1e-8);
    forwardKinematics(model, data, q);
    jointJacobians(model, data);
  }
}

namespace {
// A body on a spherical joint at the world origin (its quaternion is q) and a ball row joint between the
// world (A) and it (B), with swing and twist limits. Returns the rows at q.
Model sphericalBody() { return rodOnJoint("spherical", JointType::Spherical, "ball", Vector3(0.1, 0.1, 0.01)); }
}  // namespace

// Closed forms: with the body's rotation R = Rx(alpha) Rz(beta) (twist beta about the rod's own z, then a
// swing alpha), the swing row's error is swing_limit - alpha and the upper twist row's is twist_upper - beta.
BOOST_AUTO_TEST_CASE(swing_and_twist_errors_match_closed_forms) {
  const Model model = sphericalBody();
  Data data(model);
  const double alpha = 0.7, beta = 0.4;
  // q = q_x(alpha) (x) q_z(beta), written out.
  const double ca = std::cos(alpha / 2), sa = std::sin(alpha / 2), cb = std::cos(beta / 2), sb = std::sin(beta / 2);
  Eigen::VectorXd q(4);
  q << ca * cb, sa * cb, sa * sb, ca * sb;
  forwardKinematics(model, data, q);
  jointJacobians(model, data);
  RowJoint joint{RowJointType::Ball, 0, 1};
  joint.swing_limit = alpha - 0.01;
  joint.twist_lower = -1.0;
  joint.twist_upper = beta - 0.005;
  RowSet rows(model);
  addRowJoint(rows, model, data, joint, 0.2, 0.0, 0.01, 0);
  BOOST_REQUIRE_EQUAL(rows.size(), 5);  // 3 ball rows, swing, upper twist (the lower bound is far)
  BOOST_TEST(rows[3].unilateral);
  BOOST_TEST(std::abs(rows[3].error - (-0.01)) < 1e-12);
  BOOST_TEST(std::abs(rows[4].error - (-0.005)) < 1e-12);
  BOOST_TEST(rows[3].lo == 0.0);
}

// The limit rows' J is the rate of their error: J v against central differences of C along random v, for
// the swing row at any orientation (exact) and the twist row without swing (where the mean axis is exact).
BOOST_AUTO_TEST_CASE(swing_and_twist_rows_are_rates_of_their_errors) {
  const Model model = sphericalBody();
  Data data(model);
  std::mt19937 rng(26);
  // Ball rows, then either the swing row (always active at limit 0) or the twist row (always active).
  const auto limitRows = [&](const Eigen::VectorXd& q, bool swing, RowSet& rows) {
    forwardKinematics(model, data, q);
    jointJacobians(model, data);
    RowJoint joint{RowJointType::Ball, 0, 1};
    if (swing) joint.swing_limit = 0.0;
    if (!swing) joint.twist_upper = -10.0;
    rows.clear();
    addRowJoint(rows, model, data, joint, 0.2, 0.0, 0.01, 0);
  };
  for (int trial = 0; trial < 5; ++trial) {
    const Vector3 swing_axis(randomVector3(rng).x(), randomVector3(rng).y(), 0.0);
    const double psi = 0.4 * (trial - 2) + 0.1;  // never zero: the rotation vector is normalised below
    for (bool swung : {true, false}) {
      const Vector3 rotation = swung ? Vector3(swing_axis.normalized() * 0.6) : Vector3(0, 0, psi);
      Eigen::VectorXd q(4);
      const double angle = rotation.norm();
      q << std::cos(angle / 2), std::sin(angle / 2) * rotation / angle;
      const Eigen::VectorXd v = randomVector3(rng);
      RowSet rows(model), plus(model), minus(model);
      limitRows(q, swung, rows);
      const double eps = 1e-6;
      limitRows(integrate(model, q, v, eps), swung, plus);
      limitRows(integrate(model, q, v, -eps), swung, minus);
      BOOST_REQUIRE_EQUAL(rows.size(), 4);
      BOOST_REQUIRE_EQUAL(plus.size(), 4);
      BOOST_REQUIRE_EQUAL(minus.size(), 4);
      const int checked = 3;
      const double rate = (plus[checked].error - minus[checked].error) / (2 * eps);
      BOOST_TEST(std::abs(rows[checked].J.dot(v) - rate) < 1e-7, "row " << checked << ": " << rows[checked].J.dot(v) << " vs " << rate);
    }
  }
}
