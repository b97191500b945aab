#define BOOST_TEST_MODULE configuration
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "abdyn/algorithms/kinematics.hpp"
#include "abdyn/error.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/model_builder.hpp"
#include "abdyn/model/random_model.hpp"
#include "abdyn/spatial/quaternion.hpp"
#include "test_helpers.hpp"

using namespace abdyn;
using namespace abdyn::test;

namespace {

Model everyJointType(std::mt19937& rng) { return randomTree({16, false, true, true, false}, rng); }

Eigen::VectorXd randomVelocity(const Model& model, std::mt19937& rng, double scale = 1.0) {
  std::uniform_real_distribution<double> u(-scale, scale);
  Eigen::VectorXd v(model.nv());
  for (int k = 0; k < model.nv(); ++k) v[k] = u(rng);
  return v;
}

}  // namespace

// difference inverts integrate, and integrate(q, v, 0) is q.
BOOST_AUTO_TEST_CASE(integrate_and_difference_are_inverse) {
  std::mt19937 rng(1);
  const Model model = everyJointType(rng);
  for (int t = 0; t < 50; ++t) {
    const Eigen::VectorXd q = randomConfiguration(model, rng);
    const Eigen::VectorXd v = randomVelocity(model, rng, 2.0);
    ABDYN_CHECK_REL(integrate(model, q, v, 0.0), q, 0.0);
    const Eigen::VectorXd q1 = integrate(model, q, v, 0.7);
    ABDYN_CHECK_REL(difference(model, q, q1), (0.7 * v).eval(), 1e-12);
    ABDYN_CHECK_NEAR(difference(model, q, q), Eigen::VectorXd::Zero(model.nv()), 1e-15);
    // Quaternions stay unit.
    for (int i = 1; i < model.nbodies(); ++i) {
      const Joint& j = model.joint(i);
      if (!j.hasQuaternion()) continue;
      const int k = j.idx_q + (j.type == JointType::Floating ? 3 : 0);
      BOOST_TEST(std::abs(q1.segment<4>(k).norm() - 1.0) < 1e-14);
    }
  }
}

// integrate follows a constant joint velocity exactly: stepping twice by dt equals stepping once by
// 2 dt, and the pose of every body moves with the body velocity the Jacobian predicts (finite
// differences in the kinematics tests); here the group property.
BOOST_AUTO_TEST_CASE(integrate_is_a_one_parameter_group) {
  std::mt19937 rng(2);
  const Model model = everyJointType(rng);
  const Eigen::VectorXd q = randomConfiguration(model, rng);
  const Eigen::VectorXd v = randomVelocity(model, rng, 3.0);
  const Eigen::VectorXd twice = integrate(model, integrate(model, q, v, 0.3), v, 0.3);
  const Eigen::VectorXd once = integrate(model, q, v, 0.6);
  Data a(model), b(model);
  forwardKinematics(model, a, twice);
  forwardKinematics(model, b, once);
  for (int i = 1; i < model.nbodies(); ++i) {
    ABDYN_CHECK_REL(a.X_body_world[i].matrix(), b.X_body_world[i].matrix(), 1e-12);
  }
}

// exponentialCoordinateRate is the derivative of the exponential coordinates: for q(t) =
// integrate(q0, theta(t)) moving with velocity v, d theta/dt = rate(theta, v). Checked by following a
// short path with the rate and comparing with difference(q0, q(t)); the rate is exact to third order
// in |theta|, so with |theta| ~ 0.3 the error per unit time is below ~1e-3 |theta|^4.
BOOST_AUTO_TEST_CASE(exponential_coordinate_rate) {
  std::mt19937 rng(3);
  const Model model = everyJointType(rng);
  const Eigen::VectorXd q0 = randomConfiguration(model, rng);
  const Eigen::VectorXd theta = randomVelocity(model, rng, 0.3);
  const Eigen::VectorXd v = randomVelocity(model, rng, 1.0);
  const double h = 1e-6;
  const Eigen::VectorXd q = integrate(model, q0, theta, 1.0);
  const Eigen::VectorXd fd =
      (difference(model, q0, integrate(model, q, v, h)) - difference(model, q0, integrate(model, q, v, -h))) / (2 * h);
  Eigen::VectorXd rate(model.nv());
  exponentialCoordinateRate(model, theta, v, rate);
  BOOST_TEST((rate - fd).norm() < 5e-4 * std::pow(theta.norm(), 4) * v.norm() + 1e-8,
             "rate error " << (rate - fd).norm());
  // The plain velocity (no correction) is visibly worse, so the test can tell.
  BOOST_TEST((v - fd).norm() > 10 * (rate - fd).norm());
}

// Every kind of limit randomConfiguration documents: two-sided, none, lower only and upper only, on
// revolute and prismatic joints, and the joints without position limits (spherical, planar, floating).
// Each coordinate stays in its documented interval, and 4000 draws spread over it (uniform: the extreme
// draws come within 1% of the interval's ends, a miss has probability (0.99)^4000 < 1e-17).
BOOST_AUTO_TEST_CASE(random_configurations_respect_limits) {
  constexpr double inf = std::numeric_limits<double>::infinity(), pi = M_PI;
  struct Case {
    JointType type;
    double lower, upper;  // the joint's limits
    double a, b;          // the interval randomConfiguration documents for them
  };
  const std::vector<Case> cases = {
      {JointType::Revolute, 0.5, 1.0, 0.5, 1.0},        {JointType::Revolute, -inf, inf, -pi, pi},
      {JointType::Revolute, 2.0, inf, 2.0, 2.0 + 2 * pi}, {JointType::Revolute, -inf, -4.0, -4.0 - 2 * pi, -4.0},
      {JointType::Revolute, -1.0, inf, -1.0, -1.0 + 2 * pi},       {JointType::Prismatic, -0.1, 0.2, -0.1, 0.2},
      {JointType::Prismatic, -inf, inf, -1.0, 1.0},     {JointType::Prismatic, 5.0, inf, 5.0, 7.0},
      {JointType::Prismatic, -inf, 0.5, -1.5, 0.5},
  };
  ModelBuilder builder("limits");
  const RigidBodyInertia body(1.0, Vector3(0.0, 0.0, -0.1), Matrix3::Identity() * 0.01);
  int parent = 0;
  for (std::size_t c = 0; c < cases.size(); ++c) {
    JointSpec j;
    j.type = cases[c].type;
    j.name = "j" + std::to_string(c);
    j.axis = c % 2 ? Vector3::UnitX() : Vector3::UnitY();
    j.lower = cases[c].lower;
    j.upper = cases[c].upper;
    parent = builder.addBody(parent, j, Plx(), body, "b" + std::to_string(c));
  }
  JointSpec ball, plane;
  ball.type = JointType::Spherical;
  ball.name = "ball";
  plane.type = JointType::Planar;
  plane.name = "plane";
  parent = builder.addBody(parent, ball, Plx(), body, "ball_body");
  builder.addBody(parent, plane, Plx(), body, "plane_body");
  const Model model = builder.build();
  const int n1 = static_cast<int>(cases.size());
  const int ball_q = model.joint(n1 + 1).idx_q, plane_q = model.joint(n1 + 2).idx_q;

  std::mt19937 rng(4);
  Eigen::VectorXd lo = Eigen::VectorXd::Constant(model.nq(), inf), hi = Eigen::VectorXd::Constant(model.nq(), -inf);
  for (int t = 0; t < 4000; ++t) {
    const Eigen::VectorXd q = randomConfiguration(model, rng);
    lo = lo.cwiseMin(q);
    hi = hi.cwiseMax(q);
    BOOST_TEST(std::abs(q.segment<4>(ball_q).norm() - 1.0) < 1e-15);
  }
  for (int c = 0; c < n1; ++c) {
    const Case& k = cases[static_cast<std::size_t>(c)];
    const double width = k.b - k.a;
    BOOST_TEST(lo[c] >= k.a, "joint " << c << ": " << lo[c] << " below " << k.a);
    BOOST_TEST(hi[c] <= k.b, "joint " << c << ": " << hi[c] << " above " << k.b);
    BOOST_TEST(lo[c] < k.a + 0.01 * width, "joint " << c << ": lowest draw " << lo[c] << " of [" << k.a << ", " << k.b << "]");
    BOOST_TEST(hi[c] > k.b - 0.01 * width, "joint " << c << ": highest draw " << hi[c] << " of [" << k.a << ", " << k.b << "]");
    BOOST_TEST(lo[c] >= model.lowerPositionLimit()[c]);
    BOOST_TEST(hi[c] <= model.upperPositionLimit()[c]);
  }
  // The planar joint: offsets in [-1, 1], the angle in [-pi, pi]; quaternion components in [-1, 1].
  BOOST_TEST(lo.segment<2>(plane_q).minCoeff() >= -1.0);
  BOOST_TEST(hi.segment<2>(plane_q).maxCoeff() <= 1.0);
  BOOST_TEST(lo[plane_q + 2] >= -pi);
  BOOST_TEST(hi[plane_q + 2] <= pi);
  BOOST_TEST(lo[plane_q + 2] < -0.99 * pi);
  BOOST_TEST(hi[plane_q + 2] > 0.99 * pi);
  BOOST_TEST(lo.segment<4>(ball_q).minCoeff() < -0.9);  // orientations spread over the whole sphere
  BOOST_TEST(hi.segment<4>(ball_q).maxCoeff() > 0.9);
}

BOOST_AUTO_TEST_CASE(neutral_and_normalize) {
  ModelBuilder b("limits");
  JointSpec j;
  j.lower = 0.5;
  j.upper = 1.0;
  const int b1 = b.addBody(0, j, Plx(), RigidBodyInertia(1.0, Vector3::Zero(), Matrix3::Identity()), "a");
  JointSpec ball;
  ball.type = JointType::Spherical;
  ball.name = "ball";
  b.addBody(b1, ball, Plx(), RigidBodyInertia(1.0, Vector3::Zero(), Matrix3::Identity()), "b");
  const Model model = b.build();
  const Eigen::VectorXd q = neutral(model);
  BOOST_TEST(q[0] == 0.5);  // zero clamped into [0.5, 1]
  BOOST_TEST((q.tail<4>() - Vector4(1, 0, 0, 0)).norm() == 0.0);
  Eigen::VectorXd scaled = q;
  scaled.tail<4>() << 2.0, 0.0, 2.0, 0.0;
  normalize(model, scaled);
  ABDYN_CHECK_REL(Vector4(scaled.tail<4>()), Vector4(std::sqrt(0.5), 0, std::sqrt(0.5), 0), 1e-15);
  scaled.tail<4>().setZero();
  BOOST_CHECK_EXCEPTION(normalize(model, scaled), InvalidArgument,
                        [](const InvalidArgument& e) { return std::string(e.what()).find("'ball'") != std::string::npos; });
  BOOST_CHECK_THROW(integrate(model, q, Eigen::VectorXd::Zero(2), 1.0), InvalidArgument);
  BOOST_CHECK_THROW(difference(model, q, Eigen::VectorXd::Zero(3)), InvalidArgument);
}
