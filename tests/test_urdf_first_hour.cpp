#define BOOST_TEST_MODULE urdf_first_hour
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <random>
#include <string>

#include "abdyn/abdyn.hpp"
#include "abdyn/constraints/row_joints.hpp"
#include "abdyn/constraints/row_pgs.hpp"
#include "abdyn/constraints/row_response.hpp"
#include "abdyn/constraints/row_tree_joints.hpp"
#include "abdyn/io/urdf_loops.hpp"
#include "test_helpers.hpp"

using namespace abdyn;

// Real robot files whose loops close in a plane: the row solver on a gripper finger's light five-bar
// linkage (tests/models/patterns/light_linkage_finger.urdf), whose loop joint gives 5 rows of which 2 are
// independent, the other 3 having rounding-level Jacobians because the plane is tilted by 3.1416 rad, not
// pi.

namespace {

std::string pattern(const std::string& name) {
  return std::string(ABDYN_SOURCE_DIR) + "/tests/models/patterns/" + name + ".urdf";
}

// A closed configuration of the finger within its joints' ranges (crank, coupler, finger, rocker), refined
// from one the program's start search found.
Eigen::VectorXd closedWithinLimits(const Model& model, const ConstraintSet& loops) {
  Data data(model);
  ConstrainedDynamicsData cd(model, loops);
  Eigen::VectorXd q(4);
  q << -0.783323, 1.11627, 0.501551, -0.563434;
  projectPositions(model, data, cd, loops, q, 1e-13, 20);
  return q;
}

}  // namespace

// The loop's rows with rounding-level Jacobians (|J| below 1e-12 of the others: the out-of-plane rows)
// depend on the independent ones to that precision, and leave the solve: the solver's velocity is the
// M-orthogonal projection of v_free onto G v = 0 that projectVelocities computes independently (by a
// complete orthogonal decomposition of the loop's dense Jacobian), to 1e-9 relative, and every impulse stays
// of the size of the independent rows' ones. Random velocities from seed 29. Solved as a row solver would
// treat such a row alone, its J's noise direction would be a constraint of its own (|J|^2 scales out of
// w / K), against which the sweeps would not converge.
BOOST_AUTO_TEST_CASE(rounding_level_loop_rows_leave_the_row_solve) {
  const Model model = loadUrdf(pattern("light_linkage_finger"));
  const ConstraintSet loops = loadUrdfLoops(pattern("light_linkage_finger"), model);
  BOOST_REQUIRE_EQUAL(loops.loops.size(), 1u);
  const Eigen::VectorXd q = closedWithinLimits(model, loops);
  BOOST_TEST((q.array() >= model.lowerPositionLimit().array()).all());
  BOOST_TEST((q.array() <= model.upperPositionLimit().array()).all());

  Data data(model);
  std::mt19937 rng(29);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  Eigen::VectorXd v_free(model.nv());
  for (Eigen::Index k = 0; k < v_free.size(); ++k) v_free[k] = uniform(rng);
  forwardDynamics(model, data, q, v_free, Eigen::VectorXd::Zero(model.nv()));
  forwardKinematics(model, data, q);
  jointJacobians(model, data);
  RowSet rows(model);
  const double h = 1e-3;
  addRowJoint(rows, model, data, rowJointOf(loops.loops[0]), 0.2, 0.0, h, 0);
  BOOST_REQUIRE_EQUAL(rows.size(), 5);
  double largest = 0.0, smallest = 1.0;
  for (int r = 0; r < rows.size(); ++r) {
    largest = std::max(largest, rows[r].J.norm());
    if (rows[r].J.norm() > 0.0) smallest = std::min(smallest, rows[r].J.norm());
  }
  BOOST_REQUIRE(smallest < 1e-12 * largest);  // the pattern: a row that rounding alone gives a Jacobian
  RowResponse response(model);
  response.articulated(model, data, rows);
  Eigen::VectorXd v = v_free;
  const PgsReport report = solveRowsPgs(rows, v, PgsSettings{100, 1e-12, 1.0, false});
  BOOST_TEST(report.residual <= 1e-12);

  ConstrainedDynamicsData cd(model, loops);
  Eigen::VectorXd v_ref = v_free;
  projectVelocities(model, data, cd, loops, q, v_ref);
  ABDYN_CHECK_REL(v, v_ref, 1e-9);
  for (int r = 0; r < rows.size(); ++r) BOOST_TEST(std::abs(rows[r].impulse) <= 1.0, "row " << r << ": " << rows[r].impulse);
}

// The same rows with the finger's limit rows, stepped by the Simulator from the closed configuration
// within the limits and at rest: nothing but the 7e-6 rad tilt of the plane moves the linkage, so one
// second keeps the energy to 1e-9 of the finger's weight times its size (0.15 kg 9.81 m/s^2 0.06 m) and
// the loop closed to 1e-9 m.
BOOST_AUTO_TEST_CASE(light_linkage_finger_rests_with_limits_and_loop_rows) {
  const Model model = loadUrdf(pattern("light_linkage_finger"));
  const ConstraintSet loops = loadUrdfLoops(pattern("light_linkage_finger"), model);
  SimulatorSettings settings;
  settings.joint_limits = true;
  Simulator simulator(model, settings);
  simulator.joints.push_back(rowJointOf(loops.loops[0]));
  simulator.q = closedWithinLimits(model, loops);
  simulator.v.setZero();
  const double e0 = simulator.step(1e-3).energy;
  for (int k = 1; k < 1000; ++k) simulator.step(1e-3);
  BOOST_TEST(std::abs(simulator.statistics().energy - e0) <= 1e-9 * 0.15 * 9.81 * 0.06);
  Data data(model);
  ConstraintKinematics ck(model, loops);
  constraintJacobian(model, data, loops, ck, simulator.q);
  BOOST_TEST(ck.C.cwiseAbs().maxCoeff() <= 1e-9);
}
