#define BOOST_TEST_MODULE contacts
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "abdyn/algorithms/jacobian.hpp"
#include "abdyn/algorithms/kinematics.hpp"
#include "abdyn/constraints/row_contacts.hpp"
#include "abdyn/integrators/simulator.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/model_builder.hpp"
#include "floating_box.hpp"
#include "test_helpers.hpp"

// Contacts (row_contacts.cpp): the ground's and the bodies' contact rows against closed-form gaps, and the
// Simulator's contacts against closed-form motion: sticking and sliding, coming to rest, impacts.

using namespace abdyn;
using namespace abdyn::test;

namespace {

constexpr double kG = 9.81;

// Speed of the floating base: the norm of its linear velocity (v[3..5], body coordinates).
double baseSpeed(const Eigen::VectorXd& v) { return v.segment<3>(3).norm(); }

// The rows between the model's bodies at q (all velocities zero but v), every point within the margin included
// (speculative_steps infinite) unless `settings` says otherwise.
RowSet bodyContacts(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v, int& contacts,
                    GroundContactSettings settings = {}, bool every_point = true) {
  Data data(model);
  forwardKinematics(model, data, q);
  jointJacobians(model, data);
  RowSet rows(model);
  if (every_point) settings.speculative_steps = HUGE_VAL;
  contacts = addBodyContactRows(rows, model, data, v, settings, 1e-3, 0);
  return rows;
}
}  // namespace


// A 0.4 x 0.4 x 0.1 m box on a plane tilted by theta (gravity tilted instead, along +x down the slope).
// With tan(theta) < mu it sticks; otherwise it slides with a = g (sin(theta) - mu cos(theta)), measured
// from the velocity between t = 0.5 s and t = 1 s, within 1%.
BOOST_AUTO_TEST_CASE(box_on_incline_sticks_or_slides) {
  const auto run = [](double theta, double mu, double& displacement, double& acceleration) {
    const Vector3 g = kG * Vector3(std::sin(theta), 0.0, -std::cos(theta));
    SimulatorSettings settings;
    settings.ground = true;
    settings.contact.mu = mu;
    settings.solver.max_iterations = 200;
    settings.solver.tolerance = 1e-10;
    Simulator sim(floatingBox(Vector3(0.4, 0.4, 0.1), 1.0, g), settings);
    sim.q[2] = 0.05;
    const double h = 1e-3;
    double v_half = 0.0;
    for (int k = 1; k <= 1000; ++k) {
      sim.step(h);
      if (k == 500) v_half = sim.v[3];
    }
    displacement = sim.q[0];
    acceleration = (sim.v[3] - v_half) / 0.5;
  };
  double x = 0.0, a = 0.0;
  run(20.0 * M_PI / 180.0, 0.5, x, a);
  BOOST_TEST_MESSAGE("incline 20 deg, mu 0.5 (tan 0.364): displacement " << x << " m after 1 s");
  BOOST_TEST(std::abs(x) < 1e-4);
  for (double theta_deg : {25.0, 35.0}) {
    const double theta = theta_deg * M_PI / 180.0, mu = 0.3;
    run(theta, mu, x, a);
    const double expected = kG * (std::sin(theta) - mu * std::cos(theta));
    BOOST_TEST_MESSAGE("incline " << theta_deg << " deg, mu 0.3: acceleration " << a << " m/s^2, analytic " << expected);
    BOOST_TEST(std::abs(a - expected) < 0.01 * expected);
  }
}

// A box dropped from 0.5 m with a tilt onto the ground: after 2 s it rests (speed below 1e-3 m/s) and
// penetrates less than the contact margin.
BOOST_AUTO_TEST_CASE(dropped_box_comes_to_rest) {
  SimulatorSettings settings;
  settings.ground = true;
  settings.solver.max_iterations = 50;
  Simulator sim(floatingBox(Vector3(0.2, 0.3, 0.1), 2.0, Vector3(0, 0, -kG)), settings);
  sim.q[2] = 0.5;
  const Eigen::Vector3d axis = Eigen::Vector3d(1, 2, 0).normalized();
  const double angle = 0.4;
  sim.q.segment<4>(3) << std::cos(angle / 2), std::sin(angle / 2) * axis;
  double deepest = 0.0;
  for (int k = 0; k < 1500; ++k) {
    const StepStatistics& stats = sim.step(2e-3);
    deepest = std::max(deepest, stats.constraint_error);
  }
  BOOST_TEST_MESSAGE("dropped box: speed " << baseSpeed(sim.v) << " m/s, angular " << sim.v.head<3>().norm()
                                           << " rad/s after 2 s; deepest penetration " << deepest << " m");
  BOOST_TEST(baseSpeed(sim.v) < 1e-3);
  BOOST_TEST(sim.v.head<3>().norm() < 1e-2);
  BOOST_TEST(deepest < settings.contact.margin);
}


// Signed distances between shapes, against closed forms: shape B (box 0.4 m, or cylinder r 0.1 m, length
// 0.4 m, or sphere r 0.2 m) at the origin, a sphere A placed so that the gap is 5 mm (or 1.4 mm at a box edge).
// One contact with that gap, and its normal row measures A's velocity along the outward normal.
BOOST_AUTO_TEST_CASE(sphere_contacts_with_shapes_have_closed_form_gaps) {
  struct Case {
    ShapeType shape;
    Vector3 size, centre, normal;
    double radius, gap;
  };
  const double edge = std::sqrt(0.02);  // distance from (0.3, 0.3, 0) to the box edge at (0.2, 0.2, z)
  const std::vector<Case> cases = {
      {ShapeType::Box, Vector3(0.4, 0.4, 0.4), Vector3(0.3, 0.05, 0.02), Vector3::UnitX(), 0.095, 0.005},
      {ShapeType::Box, Vector3(0.4, 0.4, 0.4), Vector3(0.3, 0.3, 0.0), Vector3(1, 1, 0).normalized(), edge - 0.0014, 0.0014},
      {ShapeType::Cylinder, Vector3(0.1, 0.4, 0.0), Vector3(0.15, 0.0, 0.1), Vector3::UnitX(), 0.045, 0.005},
      {ShapeType::Cylinder, Vector3(0.1, 0.4, 0.0), Vector3(0.0, 0.05, -0.25), -Vector3::UnitZ(), 0.045, 0.005},
      {ShapeType::Sphere, Vector3(0.2, 0.0, 0.0), Vector3(0.0, 0.18, 0.24), Vector3(0, 0.6, 0.8), 0.095, 0.005},
  };
  for (const Case& c : cases) {
    ModelBuilder b("pair");
    b.setGravity(Vector3::Zero());
    addFloatingShape(b, "target", c.shape, c.size, 1.0);
    addFloatingShape(b, "ball", ShapeType::Sphere, Vector3(c.radius, 0, 0), 1.0);
    const Model model = b.build();
    Eigen::VectorXd q = neutral(model);
    q.segment<3>(7) = c.centre;
    Eigen::VectorXd v = Eigen::VectorXd::Zero(model.nv());
    v.segment<3>(9) << 0.3, -0.2, 0.5;  // the ball's linear velocity (body axes = world axes here)
    int contacts = 0;
    const RowSet rows = bodyContacts(model, q, v, contacts);
    BOOST_REQUIRE_EQUAL(contacts, 1);
    BOOST_TEST(std::abs(rows[0].error - c.gap) < 1e-12);
    BOOST_TEST(std::abs(rows[0].J.dot(v) - c.normal.dot(Vector3(0.3, -0.2, 0.5))) < 1e-12);
  }
}

// Box on box: a 0.2 m cube resting 1 mm above a 0.6 m cube's top face touches it at its four bottom corners.
BOOST_AUTO_TEST_CASE(box_on_box_touches_at_four_corners) {
  ModelBuilder b("boxes");
  addFloatingShape(b, "base", ShapeType::Box, Vector3::Constant(0.6), 5.0);
  addFloatingShape(b, "top", ShapeType::Box, Vector3::Constant(0.2), 1.0);
  const Model model = b.build();
  Eigen::VectorXd q = neutral(model);
  q.segment<3>(7) << 0.1, -0.05, 0.3 + 0.1 + 0.001;
  int contacts = 0;
  const RowSet rows = bodyContacts(model, q, Eigen::VectorXd::Zero(model.nv()), contacts);
  BOOST_TEST(contacts == 4);
  for (int r = 0; r < rows.size(); r += 3) BOOST_TEST(std::abs(rows[r].error - 0.001) < 1e-12);
}

// Speculative points: the top cube 3 mm above the base cube's face (beyond speculative_gap, 1 mm, within the
// margin, 1 cm) gets no rows at rest, nor while it closes at 0.1 m/s (3 mm takes 30 steps of 1 ms, more than
// speculative_steps = 20), and four rows at 0.2 m/s (15 steps); at 0.5 mm above it gets its four at rest.
BOOST_AUTO_TEST_CASE(points_apart_get_rows_only_while_they_close) {
  ModelBuilder b("boxes");
  addFloatingShape(b, "base", ShapeType::Box, Vector3::Constant(0.6), 5.0);
  addFloatingShape(b, "top", ShapeType::Box, Vector3::Constant(0.2), 1.0);
  const Model model = b.build();
  for (const double above : {0.003, 0.0005}) {
    Eigen::VectorXd q = neutral(model);
    q.segment<3>(7) << 0.1, -0.05, 0.3 + 0.1 + above;
    for (const double closing : {0.0, 0.1, 0.2}) {
      Eigen::VectorXd v = Eigen::VectorXd::Zero(model.nv());
      v[11] = -closing;  // the top cube's linear velocity along z (body axes = world axes here)
      int contacts = 0;
      const RowSet rows = bodyContacts(model, q, v, contacts, GroundContactSettings{}, false);
      const int expected = above < 1e-3 || closing > 0.15 ? 4 : 0;
      BOOST_TEST(contacts == expected, above << " m above, closing at " << closing << " m/s");
      BOOST_TEST(rows.size() == 3 * expected);
    }
  }
}

// Two equal spheres (1 kg, r 0.1 m) in zero gravity, A at 2 m/s towards B at rest: an inelastic impact
// leaves both at 1 m/s (momentum conserved); with restitution 1 (threshold 0) they exchange velocities.
BOOST_AUTO_TEST_CASE(colliding_spheres_conserve_momentum) {
  ModelBuilder b("spheres");
  b.setGravity(Vector3::Zero());
  addFloatingShape(b, "a", ShapeType::Sphere, Vector3(0.1, 0, 0), 1.0);
  addFloatingShape(b, "b", ShapeType::Sphere, Vector3(0.1, 0, 0), 1.0);
  for (double e : {0.0, 1.0}) {
    SimulatorSettings settings;
    settings.body_contacts = true;
    settings.contact.restitution = e;
    settings.contact.restitution_threshold = 0.0;
    settings.solver.tolerance = 1e-12;
    Simulator sim(b.build(), settings);
    sim.q.segment<3>(7) << 0.5, 0.0, 0.0;
    sim.v[3] = 2.0;
    for (int k = 0; k < 300; ++k) sim.step(1e-3);
    BOOST_TEST_MESSAGE("restitution " << e << ": velocities " << sim.v[3] << " and " << sim.v[9] << " m/s");
    BOOST_TEST(std::abs(sim.v[3] - (e == 0.0 ? 1.0 : 0.0)) < 1e-9);
    BOOST_TEST(std::abs(sim.v[9] - (e == 0.0 ? 1.0 : 2.0)) < 1e-9);
    BOOST_TEST(sim.q[7] - sim.q[0] >= 0.2 - settings.contact.margin);
  }
}

// A ball (r 0.1 m) dropped onto a box (0.4 m) that stands on the ground: both come to rest with the ball
// on the box's top, its centre 0.5 m up to within the margin.
BOOST_AUTO_TEST_CASE(ball_settles_on_a_box) {
  ModelBuilder b("stack");
  addFloatingShape(b, "box", ShapeType::Box, Vector3::Constant(0.4), 5.0);
  addFloatingShape(b, "ball", ShapeType::Sphere, Vector3(0.1, 0, 0), 1.0);
  SimulatorSettings settings;
  settings.ground = true;
  settings.body_contacts = true;
  Simulator sim(b.build(), settings);
  sim.q[2] = 0.2;
  sim.q.segment<3>(7) << 0.05, 0.0, 0.8;
  for (int k = 0; k < 1000; ++k) sim.step(2e-3);
  BOOST_TEST_MESSAGE("ball on box: centre at " << sim.q[9] << " m, speed " << sim.v.norm());
  BOOST_TEST(std::abs(sim.q[9] - 0.5) < settings.contact.margin);
  BOOST_TEST(sim.v.norm() < 1e-3);
}
