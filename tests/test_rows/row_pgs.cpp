// The projected Gauss-Seidel row solver (row_pgs.cpp): bilateral rows against the Lagrange multipliers of
// the dense KKT system, the bilateral block, coordinate groups, the solve in the factor's coordinates and
// the bounded MLCP's conditions.
#include <boost/test/unit_test.hpp>

#include <Eigen/Cholesky>
#include <Eigen/LU>

#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "abdyn/algorithms/aba.hpp"
#include "abdyn/algorithms/crba.hpp"
#include "abdyn/algorithms/jacobian.hpp"
#include "abdyn/algorithms/kinematics.hpp"
#include "abdyn/constraints/row_contacts.hpp"
#include "abdyn/constraints/row_joints.hpp"
#include "abdyn/constraints/row_pgs.hpp"
#include "abdyn/constraints/row_response.hpp"
#include "abdyn/constraints/row_tree_joints.hpp"
#include "abdyn/constraints/rows.hpp"
#include "abdyn/error.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/model_builder.hpp"
#include "abdyn/model/random_model.hpp"
#include "random_row_problem.hpp"
#include "test_helpers.hpp"

using namespace abdyn;
using namespace abdyn::test;

namespace {

// The impulses and velocity of the bilateral rows' Lagrange-multiplier solution, from the dense KKT system
//   [M J^T; J -diag(cfm)] [v+; -lambda] = [M v_free; target]
// (v+ = v_free + M^-1 J^T lambda, J v+ + cfm lambda = target) by full-pivoting LU, over rows [0, m).
std::pair<Eigen::VectorXd, Eigen::VectorXd> lagrangeSolution(const Eigen::MatrixXd& M, const RowSet& rows, int m,
                                                             const Eigen::VectorXd& v_free) {
  const int nv = static_cast<int>(M.rows());
  Eigen::MatrixXd K = Eigen::MatrixXd::Zero(nv + m, nv + m);
  Eigen::VectorXd rhs(nv + m);
  K.topLeftCorner(nv, nv) = M;
  rhs.head(nv) = M * v_free;
  for (int r = 0; r < m; ++r) {
    K.block(nv + r, 0, 1, nv) = rows[r].J.transpose();
    K.block(0, nv + r, nv, 1) = rows[r].J;
    K(nv + r, nv + r) = -rows[r].cfm;
    rhs[nv + r] = rows[r].target;
  }
  BOOST_REQUIRE_EQUAL(K.bottomLeftCorner(m, nv).fullPivLu().rank(), m);
  const Eigen::VectorXd x = K.fullPivLu().solve(rhs);
  return {Eigen::VectorXd(-x.tail(m)), Eigen::VectorXd(x.head(nv))};
}

// The solution v of the rows' bounded MLCP checked independently with the dense mass matrix M: v is
// v_free + M^-1 J^T lambda (to v_tolerance), each impulse within its bounds (a tied row's from its normal
// row's impulse) to 1e-12, and w = J v - target + cfm lambda >= 0 at the lower bound, <= 0 at the upper,
// 0 in between, to 1e-9.
void checkBoundedMlcp(const RowSet& rows, const Eigen::MatrixXd& M, const Eigen::VectorXd& v_free,
                      const Eigen::VectorXd& v, double v_tolerance) {
  Eigen::VectorXd impulse = Eigen::VectorXd::Zero(M.rows());
  for (int r = 0; r < rows.size(); ++r) impulse += rows[r].J * rows[r].impulse;
  const Eigen::VectorXd v_check = v_free + M.llt().solve(impulse);
  ABDYN_CHECK_NEAR(v, v_check, v_tolerance);
  for (int r = 0; r < rows.size(); ++r) {
    const ConstraintRow& row = rows[r];
    const double lo = row.tie >= 0 ? -row.mu * rows[row.tie].impulse : row.lo;
    const double hi = row.tie >= 0 ? row.mu * rows[row.tie].impulse : row.hi;
    const double w = row.J.dot(v_check) - row.target + row.cfm * row.impulse;
    BOOST_TEST(row.impulse >= lo - 1e-12);
    BOOST_TEST(row.impulse <= hi + 1e-12);
    if (row.impulse <= lo + 1e-12) BOOST_TEST(w >= -1e-9);
    if (row.impulse >= hi - 1e-12) BOOST_TEST(w <= 1e-9);
    if (row.impulse > lo + 1e-12 && row.impulse < hi - 1e-12) BOOST_TEST(std::abs(w) <= 1e-9);
  }
}

// A unilateral row on coordinate `limit_k` (J = +e_k or -e_k, like a lower or an upper limit, impulse in
// [0, hi], target 0.3 u) and a friction row on `friction_k` (bounds +-0.2 (1.5 + u)), u uniform in [-1, 1].
void addLimitAndFriction(RowSet& rows, int limit_k, bool upper, int friction_k, double hi, std::mt19937& rng) {
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  ConstraintRow& limit = rows.add();
  limit.J[limit_k] = upper ? -1.0 : 1.0;
  limit.lo = 0.0;
  limit.hi = hi;
  limit.target = 0.3 * uniform(rng);
  ConstraintRow& friction = rows.add();
  friction.J[friction_k] = 1.0;
  friction.hi = 0.2 * (1.5 + uniform(rng));
  friction.lo = -friction.hi;
}

// Two angular rows about random axes, between bodies 2 and 5 (target 0.2) and from body 7 to the world
// (target -0.1), with impulses in [-0.5, 0.5]: bounded, like the unilateral rows on distinct coordinates,
// so that the problems built with them have a solution.
void addBoundedAngularRows(RowSet& rows, const Model& model, const Data& data, std::mt19937& rng) {
  for (const auto& [a, b, target] : {std::tuple(2, 5, 0.2), std::tuple(7, 0, -0.1)}) {
    ConstraintRow& row = addAngularRow(rows, model, data, a, b, randomVector3(rng).normalized());
    row.target = target;
    row.lo = -0.5;
    row.hi = 0.5;
  }
}

// Solves the rows from v_free to convergence, plain and over-relaxed (omega 1.5), checks that `visits`
// rows were visited the `visit` way and that the result satisfies the bounded MLCP (checkBoundedMlcp).
void solveAndCheckBoundedMlcp(RowSet& rows, const Eigen::MatrixXd& M, const Eigen::VectorXd& v_free,
                              RowSolverState::Visit visit, int visits, const char* what) {
  for (double omega : {1.0, 1.5}) {
    Eigen::VectorXd v = v_free;
    const PgsReport report = solveRowsPgs(rows, v, PgsSettings{20000, 1e-12, omega, false});
    BOOST_TEST_MESSAGE(what << ", omega " << omega << ": " << report.iterations << " sweeps, residual "
                            << report.residual);
    BOOST_TEST(report.residual <= 1e-12);
    int visited = 0;
    for (int r = 0; r < rows.size(); ++r) visited += rows.state(r).visit == visit;
    BOOST_TEST(visited == visits);
    checkBoundedMlcp(rows, M, v_free, v, 1e-12);
  }
}

}  // namespace

// With bilateral rows only, PGS row by row (bilateral_block off) converges to the Lagrange-multiplier solution of the dense KKT system
//   [M J^T; J 0] [v+; -lambda] = [M v_free; target]
// solved by full-pivoting LU (lagrangeSolution): impulses and velocities to 1e-8. Rows (independent, so lambda is unique):
// a ball joint from a 9-link chain's tip to the world, a distance joint between two links and an angular
// row about a random axis between two links.
BOOST_AUTO_TEST_CASE(bilateral_pgs_matches_lagrange_multipliers) {
  std::mt19937 rng(23);
  RandomRowProblem problem({9, true, false, false, false}, rng);
  auto& [model, data, q, v_free] = problem;
  RowSet rows(model);
  const double h = 0.01;
  RowJoint ball{RowJointType::Ball, 9, 0, Plx::translation(Vector3(0.1, 0.2, 0.0)), Plx::translation(Vector3(0.3, 0.5, 1.0))};
  RowJoint distance{RowJointType::Distance, 3, 6, Plx(), Plx::translation(Vector3(0.2, 0, 0)), 0.7};
  addRowJoint(rows, model, data, ball, 0.2, 0.0, h, 0);
  addRowJoint(rows, model, data, distance, 0.2, 0.0, h, 8);
  addAngularRow(rows, model, data, 2, 7, randomVector3(rng).normalized()).target = 0.3;
  BOOST_REQUIRE_EQUAL(rows.size(), 5);
  RowResponse response(model);
  response.articulated(model, data, rows);
  Eigen::VectorXd v = v_free;
  PgsSettings settings;
  settings.max_iterations = 200000;
  settings.tolerance = 1e-13;
  settings.warm_start = false;
  settings.bilateral_block = false;  // the sweeps row by row converge: the block would solve it directly
  const PgsReport report = solveRowsPgs(rows, v, settings);
  BOOST_TEST_MESSAGE("bilateral PGS: " << report.iterations << " sweeps, residual " << report.residual);

  Eigen::VectorXd lambda(rows.size());
  for (int r = 0; r < rows.size(); ++r) lambda[r] = rows[r].impulse;
  const auto [lambda_ref, v_ref] = lagrangeSolution(massMatrix(model, data, q), rows, rows.size(), v_free);
  ABDYN_CHECK_REL(lambda, lambda_ref, 1e-8);
  ABDYN_CHECK_REL(v, v_ref, 1e-8);
}

// The bilateral block solves bilateral rows exactly in one sweep: on a 12-link chain (seed 27), a hinge
// joint between links 3 and 9, a ball joint from the tip to the world, a distance joint and an angular
// row (10 independent rows), one sweep from zero impulses gives the Lagrange-multiplier solution of the
// dense KKT system (lagrangeSolution) to 1e-10, without and with softness (cfm 1e-3 on every row). Then a
// copy of the angular row (the same J and target: redundant) is added: it leaves the block and the solve,
// and one sweep still gives v+ of the independent rows' solution, with the two copies' impulses summing to
// the one row's (1e-10).
BOOST_AUTO_TEST_CASE(bilateral_block_matches_lagrange_multipliers_in_one_sweep) {
  std::mt19937 rng(27);
  RandomRowProblem problem({12, true, false, false, false}, rng);
  auto& [model, data, q, v_free] = problem;
  const Eigen::MatrixXd M = massMatrix(model, data, q);
  RowResponse response(model);
  const double h = 0.01;
  const PgsSettings one_sweep{1, 0.0, 1.0, false};
  for (double cfm : {0.0, 1e-3}) {
    RowSet rows(model);
    RowJoint hinge{RowJointType::Hinge, 9, 3, Plx(randomRotation(rng), randomVector3(rng)), Plx(randomRotation(rng), randomVector3(rng))};
    RowJoint ball{RowJointType::Ball, 12, 0, Plx::translation(Vector3(0.1, 0.2, 0.0)), Plx::translation(Vector3(0.3, 0.5, 1.0))};
    RowJoint distance{RowJointType::Distance, 4, 11, Plx(), Plx::translation(Vector3(0.2, 0, 0)), 0.7};
    addRowJoint(rows, model, data, hinge, 0.2, cfm, h, 0);
    addRowJoint(rows, model, data, ball, 0.2, cfm, h, 9);
    addRowJoint(rows, model, data, distance, 0.2, cfm, h, 18);
    const Vector3 axis = randomVector3(rng).normalized();
    ConstraintRow& angular = addAngularRow(rows, model, data, 2, 7, axis);
    angular.target = 0.3;
    angular.cfm = cfm;
    BOOST_REQUIRE_EQUAL(rows.size(), 10);
    response.articulated(model, data, rows);
    Eigen::VectorXd v = v_free;
    const PgsReport report = solveRowsPgs(rows, v, one_sweep);
    BOOST_TEST(report.iterations == 1);
    const auto [lambda_ref, v_ref] = lagrangeSolution(M, rows, rows.size(), v_free);
    Eigen::VectorXd lambda(rows.size());
    for (int r = 0; r < rows.size(); ++r) {
      lambda[r] = rows[r].impulse;
      BOOST_TEST((rows.state(r).visit == RowSolverState::Visit::Block));
    }
    ABDYN_CHECK_REL(lambda, lambda_ref, 1e-10);
    ABDYN_CHECK_REL(v, v_ref, 1e-10);
    // With only the block's rows, the residual reported for the one sweep is the rows' after it: no
    // second sweep confirms it. Checked against w = J v - target + cfm lambda from the rows' J.
    v = v_free;
    const PgsReport converged = solveRowsPgs(rows, v, PgsSettings{10, 1e-9, 1.0, false});
    BOOST_TEST(converged.iterations == 1);
    BOOST_TEST(converged.residual <= 1e-9);
    double largest_w = 0.0;
    for (int r = 0; r < rows.size(); ++r) {
      largest_w = std::max(largest_w, std::abs(rows[r].J.dot(v) - rows[r].target + cfm * rows[r].impulse));
    }
    BOOST_TEST(largest_w <= converged.residual + 1e-12);
    // The same in the factor's coordinates, where the block's A is built over the rows' shared supports.
    factorizeMassMatrix(model, data);
    v = v_free;
    const PgsReport factor = solveRowsPgs(model, data, rows, v, PgsSettings{10, 1e-9, 1.0, false});
    BOOST_TEST(factor.iterations == 1);
    BOOST_TEST(factor.residual <= 1e-9);
    ABDYN_CHECK_REL(v, v_ref, 1e-10);
    for (int r = 0; r < rows.size(); ++r) lambda[r] = rows[r].impulse;
    ABDYN_CHECK_REL(lambda, lambda_ref, 1e-10);

    if (cfm != 0.0) continue;
    ConstraintRow& copy = addAngularRow(rows, model, data, 2, 7, axis);
    copy.target = 0.3;
    response.articulated(model, data, rows);
    v = v_free;
    solveRowsPgs(rows, v, one_sweep);
    BOOST_TEST((rows.state(10).visit == RowSolverState::Visit::Alone));
    ABDYN_CHECK_REL(v, v_ref, 1e-10);
    BOOST_TEST(std::abs(rows[9].impulse + rows[10].impulse - lambda_ref[9]) <= 1e-10 * (1.0 + std::abs(lambda_ref[9])));
  }
}

// The bilateral block among bounded rows (block Gauss-Seidel): on a random tree (seed 28) a ball joint
// from its deepest body to the world and an angular row from another body to the world (bilateral, of
// rank 4), a pushing row (+-e_k, impulse in [0, 2]) and a friction row on four coordinates, a
// friction-like row tied to the first pushing row and two bounded angular rows (15 rows on 8 velocities).
// The block holds the 4 bilateral rows. The result satisfies the bounded MLCP's conditions, checked independently with the
// dense mass matrix as in pgs_solves_the_bounded_mlcp (1e-9), for plain and over-relaxed sweeps.
BOOST_AUTO_TEST_CASE(bilateral_block_among_bounded_rows_solves_the_mlcp) {
  std::mt19937 rng(28);
  RandomRowProblem problem({8, false, false, false, false}, rng);
  auto& [model, data, q, v_free] = problem;
  // The ball joint on the body with the most joints above it, so that its rows can hold.
  int deepest = 1, most = 0;
  for (int i = 1; i < model.nbodies(); ++i) {
    int depth = 0;
    for (int j = i; j > 0; j = model.parent(j)) ++depth;
    if (depth > most) deepest = i, most = depth;
  }
  RowSet rows(model);
  addRowJoint(rows, model, data, RowJoint{RowJointType::Ball, deepest, 0, Plx(), Plx::translation(randomVector3(rng))},
              0.2, 0.0, 0.01, 0);
  addAngularRow(rows, model, data, deepest == 8 ? 4 : 8, 0, randomVector3(rng).normalized()).target = 0.2;
  Eigen::MatrixXd J_bilateral(4, model.nv());
  for (int r = 0; r < 4; ++r) J_bilateral.row(r) = rows[r].J.transpose();
  BOOST_REQUIRE_EQUAL(J_bilateral.fullPivLu().rank(), 4);
  const int first_limit = rows.size();
  // Pushing rows with a cap, so that the bilateral rows cannot make them infeasible.
  for (int k = 0; k < 4; ++k) addLimitAndFriction(rows, 2 * k, k % 2 != 0, 2 * k + 1, 2.0, rng);
  ConstraintRow& tied = addAngularRow(rows, model, data, 5, 0, randomVector3(rng).normalized());
  tied.target = -0.4;
  tied.tie = first_limit;
  tied.mu = 0.5;
  addBoundedAngularRows(rows, model, data, rng);
  RowResponse response(model);
  response.articulated(model, data, rows);
  const Eigen::MatrixXd M = massMatrix(model, data, q);
  solveAndCheckBoundedMlcp(rows, M, v_free, RowSolverState::Visit::Block, 4, "bilateral block among bounded rows");
}

namespace {

// A 2 kg cart on a prismatic x joint bounded below (x >= 0); tests add further bodies.
ModelBuilder cartAboveZero() {
  ModelBuilder b("slider");
  JointSpec joint;
  joint.type = JointType::Prismatic;
  joint.axis = Vector3::UnitX();
  joint.name = "x";
  joint.lower = 0.0;
  b.addBody(0, joint, Plx(), RigidBodyInertia(2.0, Vector3::Zero(), Matrix3::Identity()), "cart");
  return b;
}

}  // namespace

// Unilateral and tied rows: a limit row only pushes (impulse >= 0), and a friction row tied to it stays
// within mu times its impulse; the solution satisfies complementarity to the tolerance.
BOOST_AUTO_TEST_CASE(bounded_rows_respect_their_bounds) {
  ModelBuilder b = cartAboveZero();
  JointSpec joint;
  joint.type = JointType::Prismatic;
  joint.axis = Vector3::UnitY();
  joint.name = "y";
  b.addBody(1, joint, Plx(), RigidBodyInertia(1.0, Vector3::Zero(), Matrix3::Identity()), "top");
  const Model model = b.build();
  Data data(model);
  Eigen::VectorXd q(2), v_free(2);
  q << 0.001, 0.0;  // within the margin of the lower bound x >= 0
  v_free << -1.0, 0.5;
  forwardDynamics(model, data, q, v_free, Eigen::VectorXd::Zero(2));
  RowSet rows(model);
  const double h = 0.01;
  addJointLimitRows(rows, model, q, 0.01, 0.2, h, 0);
  BOOST_REQUIRE_EQUAL(rows.size(), 1);
  ConstraintRow& friction = rows.add();
  friction.J << 0.0, 1.0;
  friction.tie = 0;
  friction.mu = 0.1;
  RowResponse response(model);
  response.articulated(model, data, rows);
  Eigen::VectorXd v = v_free;
  const PgsReport report = solveRowsPgs(rows, v, PgsSettings{100, 1e-12, 1.0, false});
  BOOST_TEST(report.residual <= 1e-12);
  // Closed form: the limit stops x at the gap (v_x = -gap / h = -0.1) with impulse m (v_x - v_free_x) = 1.8 on
  // a 3 kg total mass; friction saturates at mu * 1.8 * ... on the 1 kg body: v_y = 0.5 - 0.1 * 1.8 * 3 / 1.
  BOOST_TEST(std::abs(v[0] + 0.1) < 1e-12);
  BOOST_TEST(std::abs(rows[0].impulse - 3.0 * 0.9) < 1e-12);
  BOOST_TEST(std::abs(rows[1].impulse + 0.1 * rows[0].impulse) < 1e-12);
  BOOST_TEST(std::abs(v[1] - (0.5 - 0.1 * 2.7 / 1.0)) < 1e-12);
}

// A limit row and a friction row on one coordinate (a 2 kg slider 5 mm past its lower bound x >= 0, with
// strong friction): the limit pushes out at target 0.1 m/s (ERP 0.2, h = 0.01), friction resists with at
// most f h = 10 N s. Closed form: v+ = 0.1, friction at its bound -10, limit impulse 2 (0.1 - 0.03) + 10.
// Row by row, each sweep passes only m 0.1 = 0.2 N s from friction to the limit, so the residual stays
// at 0.1 m/s for 50 sweeps (checked after 40); the coordinate group reaches the solution in its first
// sweep (to 1e-12).
BOOST_AUTO_TEST_CASE(coordinate_group_solves_a_limit_against_friction) {
  const Model model = cartAboveZero().build();
  Data data(model);
  Eigen::VectorXd q(1), v_free(1);
  q << -0.005;
  v_free << 0.03;
  forwardDynamics(model, data, q, v_free, Eigen::VectorXd::Zero(1));
  RowSet rows(model);
  const double h = 0.01;
  addJointLimitRows(rows, model, q, 0.01, 0.2, h, 0);
  ConstraintRow& friction = rows.add();
  friction.J << 1.0;
  friction.hi = 1000.0 * h;
  friction.lo = -friction.hi;
  BOOST_REQUIRE_EQUAL(rows.size(), 2);
  BOOST_REQUIRE(std::abs(rows[0].target - 0.1) < 1e-15);
  RowResponse response(model);
  response.articulated(model, data, rows);
  Eigen::VectorXd v = v_free;
  PgsSettings settings{40, 1e-12, 1.0, false};
  settings.coordinate_groups = false;
  const PgsReport row_by_row = solveRowsPgs(rows, v, settings);
  BOOST_TEST(row_by_row.residual > 0.09);
  v = v_free;
  settings.coordinate_groups = true;
  const PgsReport grouped = solveRowsPgs(rows, v, settings);
  BOOST_TEST(grouped.iterations <= 2);
  BOOST_TEST(grouped.residual <= 1e-12);
  BOOST_TEST((rows.state(0).visit == RowSolverState::Visit::CoordinateFirst));
  BOOST_TEST(std::abs(v[0] - 0.1) < 1e-12);
  BOOST_TEST(std::abs(rows[1].impulse + 10.0) < 1e-12);
  BOOST_TEST(std::abs(rows[0].impulse - (2.0 * 0.07 + 10.0)) < 1e-12);
}

// Coordinate groups among other rows on a random tree (seed 31): per revolute coordinate a unilateral row
// (+-e_k, like a lower or an upper limit), a friction row and, on every third, a motor row, with random
// targets and bounds, plus two bounded angular rows between bodies. The result satisfies the bounded MLCP's conditions
// checked independently with the dense mass matrix, as in pgs_solves_the_bounded_mlcp (1e-9), for plain
// and over-relaxed sweeps.
BOOST_AUTO_TEST_CASE(coordinate_groups_solve_the_bounded_mlcp) {
  std::mt19937 rng(31);
  RandomRowProblem problem({8, false, false, false, false}, rng);
  auto& [model, data, q, v_free] = problem;
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  RowSet rows(model);
  for (int k = 0; k < model.nv(); ++k) {
    addLimitAndFriction(rows, k, k % 2 != 0, k, std::numeric_limits<double>::infinity(), rng);
    if (k % 3 == 0) {
      ConstraintRow& motor = rows.add();
      motor.J[k] = 1.0;
      motor.target = uniform(rng);
      motor.hi = 0.5;
      motor.lo = -0.5;
    }
  }
  addBoundedAngularRows(rows, model, data, rng);
  RowResponse response(model);
  response.articulated(model, data, rows);
  const Eigen::MatrixXd M = massMatrix(model, data, q);
  solveAndCheckBoundedMlcp(rows, M, v_free, RowSolverState::Visit::CoordinateFirst, model.nv(), "coordinate groups");
}

// The solve in the factor's coordinates z = L v against the solve in velocities, on a floating random tree
// with every joint type (seed 37) and every kind of row: bilateral angular and linear rows (the direct
// block), a contact-like unilateral row with two friction rows tied to it, a soft row (cfm), and
// per-coordinate limit, friction and motor rows (coordinate groups). Both run the same Gauss-Seidel
// iterates on the same MLCP, so after a fixed number of sweeps, warm started, with and without
// over-relaxation, v and the impulses agree to rounding (1e-10 relative); run to convergence, the
// factor-space result satisfies the MLCP's conditions, checked with the dense mass matrix (1e-9).
BOOST_AUTO_TEST_CASE(factor_coordinates_solve_matches_the_velocity_solve) {
  std::mt19937 rng(37);
  RandomRowProblem problem({12, false, true, true, false}, rng);
  auto& [model, data, q, v_free] = problem;
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  RowSet rows(model);
  const int last = model.nbodies() - 1;
  addAngularRow(rows, model, data, 3, last, Vector3::UnitZ()).target = 0.2;
  addLinearRow(rows, model, data, 0, 5, randomVector3(rng), randomVector3(rng).normalized()).target = -0.1;
  ConstraintRow& normal = addLinearRow(rows, model, data, last - 1, 0, randomVector3(rng), Vector3::UnitZ());
  normal.lo = 0.0;
  normal.target = 0.3;
  const int normal_index = rows.size() - 1;
  for (const Vector3& t : {Vector3(Vector3::UnitX()), Vector3(Vector3::UnitY())}) {
    ConstraintRow& friction = addLinearRow(rows, model, data, last - 1, 0, randomVector3(rng), t);
    friction.tie = normal_index;
    friction.mu = 0.5;
  }
  ConstraintRow& soft = addAngularRow(rows, model, data, 2, 0, Vector3::UnitX());
  soft.cfm = 0.05;
  soft.target = 0.4;
  for (int k = model.nv() - 4; k < model.nv(); ++k) {
    ConstraintRow& limit = rows.add();
    limit.J[k] = k % 2 == 0 ? 1.0 : -1.0;
    limit.lo = 0.0;
    limit.target = 0.3 * uniform(rng);
    ConstraintRow& friction = rows.add();
    friction.J[k] = 1.0;
    friction.hi = 0.2;
    friction.lo = -0.2;
  }
  ConstraintRow& motor = rows.add();
  motor.J[model.nv() - 1] = 1.0;
  motor.target = 0.7;
  motor.lo = -0.3;
  motor.hi = 0.3;
  std::vector<double> warm(static_cast<std::size_t>(rows.size()));
  for (double& w : warm) w = 0.1 * uniform(rng);

  massMatrix(model, data, q);
  factorizeMassMatrix(model, data);
  RowResponse response(model);
  response.factorized(model, data, rows);
  for (double omega : {1.0, 1.4}) {
    const PgsSettings settings{7, 0.0, omega, true};
    Eigen::VectorXd v_velocity = v_free, v_factor = v_free;
    for (int r = 0; r < rows.size(); ++r) rows[r].impulse = warm[static_cast<std::size_t>(r)];
    solveRowsPgs(rows, v_velocity, settings);
    Eigen::VectorXd impulses(rows.size());
    for (int r = 0; r < rows.size(); ++r) impulses[r] = rows[r].impulse;
    for (int r = 0; r < rows.size(); ++r) rows[r].impulse = warm[static_cast<std::size_t>(r)];
    const PgsReport report = solveRowsPgs(model, data, rows, v_factor, settings);
    BOOST_TEST(report.iterations == 7);
    ABDYN_CHECK_REL(v_factor, v_velocity, 1e-10);
    for (int r = 0; r < rows.size(); ++r) BOOST_TEST(std::abs(rows[r].impulse - impulses[r]) <= 1e-10 * (1.0 + impulses.norm()));
  }
  // A row's support runs are ascending and disjoint and hold every nonzero of Y (the sweeps read nothing
  // else), and Y = L^-T J^T.
  for (int r = 0; r < rows.size(); ++r) {
    const RowSolverState& row = rows.state(r);
    BOOST_TEST(row.support_runs >= 1);
    for (int t = 1; t < row.support_runs; ++t) BOOST_TEST(row.support[t].first > row.support[t - 1].last + 1);
    Eigen::VectorXd outside = row.Y;
    for (int t = 0; t < row.support_runs; ++t) {
      outside.segment(row.support[t].first, row.support[t].last - row.support[t].first + 1).setZero();
    }
    BOOST_TEST(outside.isZero(0.0));
    Eigen::VectorXd Lt_Y = row.Y;
    multiplyByLTransposed(model, data, Lt_Y);
    ABDYN_CHECK_NEAR(Lt_Y, rows[r].J, 1e-12);
  }

  Eigen::VectorXd v = v_free;
  const PgsReport report = solveRowsPgs(model, data, rows, v, PgsSettings{20000, 1e-12, 1.0, false});
  BOOST_TEST_MESSAGE("factor coordinates: " << report.iterations << " sweeps, residual " << report.residual);
  BOOST_TEST(report.residual <= 1e-12);
  checkBoundedMlcp(rows, massMatrix(model, data, q), v_free, v, 1e-12);
}

// The factor coordinates of rows built into storage that held other rows (other bodies, other supports,
// one row fewer) are those of rows built into fresh storage, bit for bit: the solver clears only a row's
// last support, so this checks that nothing of the earlier rows is left in Y or D^-1 Y. Rows of a contact
// point (a normal and two friction rows on the same bodies) are solved together, a joint-like row alone.
BOOST_AUTO_TEST_CASE(factor_coordinates_of_reused_rows_match_fresh_ones) {
  std::mt19937 rng(41);
  RandomRowProblem problem({14, false, false, true, false}, rng);
  auto& [model, data, q, v_free] = problem;
  massMatrix(model, data, q);
  factorizeMassMatrix(model, data);
  const int last = model.nbodies() - 1;
  // Contact points on each body against the world, from the leaves (round 0) or the root (round 1) on.
  const auto build = [&](RowSet& rows, int round) {
    rows.clear();
    for (int i = 1; i <= last - round; ++i) {
      const int body = round == 0 ? last + 1 - i : i;
      const Vector3 p(0.1 * i, -0.05 * i, 0.02 * round);
      ConstraintRow& normal = addLinearRow(rows, model, data, body, 0, p, Vector3::UnitZ());
      normal.lo = 0.0;
      normal.target = 0.1 * i;
      const int normal_index = rows.size() - 1;
      for (const Vector3& t : {Vector3(Vector3::UnitX()), Vector3(Vector3::UnitY())}) {
        ConstraintRow& friction = addLinearRow(rows, model, data, body, 0, p, t);
        friction.tie = normal_index;
        friction.mu = 0.5;
      }
    }
    addAngularRow(rows, model, data, last, 1, Vector3::UnitX()).target = 0.2;
  };
  const PgsSettings settings{30, 0.0, 1.0, false};
  RowSet reused(model), fresh(model);
  Eigen::VectorXd v = v_free;
  build(reused, 0);
  solveRowsPgs(model, data, reused, v, settings);
  v = v_free;
  build(reused, 1);
  solveRowsPgs(model, data, reused, v, settings);
  Eigen::VectorXd v_fresh = v_free;
  build(fresh, 1);
  solveRowsPgs(model, data, fresh, v_fresh, settings);
  BOOST_TEST_REQUIRE(reused.size() == fresh.size());
  BOOST_TEST((v.array() == v_fresh.array()).all());
  for (int r = 0; r < fresh.size(); ++r) {
    BOOST_TEST((reused.state(r).Y.array() == fresh.state(r).Y.array()).all(), "row " << r);
    BOOST_TEST((reused.state(r).Dinv_Y.array() == fresh.state(r).Dinv_Y.array()).all(), "row " << r);
    BOOST_TEST(reused[r].impulse == fresh[r].impulse, "row " << r);
    Eigen::VectorXd Lt_Y = fresh.state(r).Y;  // and the fresh rows' Y is L^-T J^T (to rounding)
    multiplyByLTransposed(model, data, Lt_Y);
    ABDYN_CHECK_NEAR(Lt_Y, fresh[r].J, 1e-12);
  }
}

// Bad solver settings and rows are an abdyn::InvalidArgument: over-relaxation outside (0, 2), no sweeps, a
// tie to a row that does not exist, bounds lo > hi, v of the wrong size; the solve in the factor's
// coordinates names a missing factor and v's size.
BOOST_AUTO_TEST_CASE(bad_pgs_arguments_throw) {
  std::mt19937 rng(25);
  const Model model = randomTree({3, true, false, false, false}, rng);
  Data data(model);
  RowSet rows(model);
  const auto says = [](const char* text) {
    return [text](const InvalidArgument& e) { return std::string(e.what()).find(text) != std::string::npos; };
  };
  rows.add().J.setOnes();
  Eigen::VectorXd v = Eigen::VectorXd::Zero(model.nv());
  BOOST_CHECK_THROW(solveRowsPgs(rows, v, PgsSettings{10, 1e-6, 2.0, true}), InvalidArgument);
  BOOST_CHECK_THROW(solveRowsPgs(rows, v, PgsSettings{0, 1e-6, 1.0, true}), InvalidArgument);
  rows[0].tie = 3;
  BOOST_CHECK_THROW(solveRowsPgs(rows, v, PgsSettings{}), InvalidArgument);
  rows[0].tie = -1;
  rows[0].lo = 1.0;
  rows[0].hi = -1.0;
  BOOST_CHECK_THROW(solveRowsPgs(rows, v, PgsSettings{}), InvalidArgument);
  Eigen::VectorXd wrong(model.nv() + 1);
  rows[0].lo = -1.0;
  BOOST_CHECK_THROW(solveRowsPgs(rows, wrong, PgsSettings{}), InvalidArgument);
  // The solve in the factor's coordinates needs the factor of M in data, and v of the model's size.
  BOOST_CHECK_EXCEPTION(solveRowsPgs(model, data, rows, v, PgsSettings{}), InvalidArgument, says("holds no factor"));
  massMatrix(model, data, neutral(model));
  factorizeMassMatrix(model, data);
  BOOST_CHECK_NO_THROW(solveRowsPgs(model, data, rows, v, PgsSettings{}));
  BOOST_CHECK_EXCEPTION(solveRowsPgs(model, data, rows, wrong, PgsSettings{}), InvalidArgument, says("columns"));
}

// The bounded MLCP with unilateral and friction rows: a floating box pressed onto the ground plane at 4
// corners, sliding and spinning. After PGS, the conditions are checked independently with the dense mass
// matrix: v+ = v_free + M^-1 J^T lambda (Cholesky here), and per row with w = J v+ - target:
// lo <= lambda <= hi, w >= 0 where lambda = lo, w <= 0 where lambda = hi, w = 0 in between (1e-9).
BOOST_AUTO_TEST_CASE(pgs_solves_the_bounded_mlcp) {
  ModelBuilder b("box");
  JointSpec free;
  free.type = JointType::Floating;
  free.name = "free";
  const int body = b.addBody(0, free, Plx(), RigidBodyInertia(2.0, Vector3::Zero(), Vector3(0.02, 0.03, 0.04).asDiagonal()), "box");
  Geometry g;
  g.name = "box";
  g.body = body;
  g.shape = ShapeType::Box;
  g.size = Vector3(0.4, 0.3, 0.2);
  b.addGeometry(g);
  const Model model = b.build();
  Data data(model);
  Eigen::VectorXd q = neutral(model);
  q[2] = 0.1 + 0.002;  // 2 mm above the ground: speculative rows
  Eigen::VectorXd v(6);
  v << 0.5, -0.3, 2.0, 1.0, 0.4, -3.0;  // spinning, sliding and falling
  const double h = 1e-3;
  const Eigen::VectorXd v_free = v + h * forwardDynamics(model, data, q, v, Eigen::VectorXd::Zero(6));
  forwardKinematics(model, data, q);
  jointJacobians(model, data);
  RowSet rows(model);
  GroundContactSettings contact;
  contact.mu = 0.4;
  BOOST_REQUIRE_EQUAL(addGroundContactRows(rows, model, data, v, contact, h, 0), 4);
  RowResponse response(model);
  response.articulated(model, data, rows);
  Eigen::VectorXd v_plus = v_free;
  const PgsReport report = solveRowsPgs(rows, v_plus, PgsSettings{5000, 1e-12, 1.0, false});
  BOOST_TEST_MESSAGE("box MLCP: " << report.iterations << " sweeps, residual " << report.residual);
  BOOST_TEST(report.residual <= 1e-12);

  checkBoundedMlcp(rows, massMatrix(model, data, q), v_free, v_plus, 1e-12);
  int active_normals = 0;
  for (int r = 0; r < rows.size(); ++r) active_normals += rows[r].tie < 0 && rows[r].impulse > 0.0;
  BOOST_TEST(active_normals > 0);
}
