#define BOOST_TEST_MODULE rows
#include <boost/test/unit_test.hpp>

#include <Eigen/Cholesky>
#include <Eigen/LU>

#include <random>
#include <tuple>
#include <utility>

#include "abdyn/algorithms/aba.hpp"
#include "abdyn/algorithms/crba.hpp"
#include "abdyn/algorithms/jacobian.hpp"
#include "abdyn/algorithms/kinematics.hpp"
#include "abdyn/constraints/row_contacts.hpp"
#include "abdyn/constraints/row_joints.hpp"
#include "abdyn/error.hpp"
#include "abdyn/io/urdf.hpp"
#include "abdyn/constraints/row_pgs.hpp"
#include "abdyn/constraints/row_response.hpp"
#include "abdyn/constraints/row_tree_joints.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/model_builder.hpp"
#include "abdyn/model/random_model.hpp"
#include "test_helpers.hpp"

using namespace abdyn;
using namespace abdyn::test;

namespace {

// World position of a point fixed in `body` (given in body coordinates) at configuration q.
Vector3 pointInWorld(const Model& model, Data& data, const Eigen::VectorXd& q, int body, const Vector3& p_body) {
  forwardKinematics(model, data, q);
  return data.X_body_world[body].applyInverseToPoint(p_body);
}
// World rotation of `body` at q.
Matrix3 rotationInWorld(const Model& model, Data& data, const Eigen::VectorXd& q, int body) {
  forwardKinematics(model, data, q);
  return data.X_body_world[body].E().transpose();
}

}  // namespace

// Linear and angular rows against central differences of the point's position and the body's rotation:
// J v = n . (d/dt p_A - d/dt p_B) and a . (w_A - w_B), with w from R(q + eps v) R(q)^T. Tolerance 1e-7.
BOOST_AUTO_TEST_CASE(row_jacobians_match_finite_differences) {
  std::mt19937 rng(21);
  const Model model = randomTree({8, false, true, true, false}, rng);
  Data data(model);
  const Eigen::VectorXd q = randomConfiguration(model, rng);
  const Eigen::VectorXd v = Eigen::VectorXd::Random(model.nv());
  const int a = 5, b = 3;
  const Vector3 p_a_body = randomVector3(rng), n = randomVector3(rng).normalized(), axis = randomVector3(rng).normalized();
  const Vector3 p_world = pointInWorld(model, data, q, a, p_a_body);
  const Vector3 p_b_body = data.X_body_world[b].applyToPoint(p_world);  // the same world point, fixed in B
  forwardKinematics(model, data, q);
  jointJacobians(model, data);
  RowSet rows(model);
  const double J_lin_v = addLinearRow(rows, model, data, a, b, p_world, n).J.dot(v);
  const double J_ang_v = addAngularRow(rows, model, data, a, b, axis).J.dot(v);
  const double J_world_v = addLinearRow(rows, model, data, 0, b, p_world, n).J.dot(v);

  const double eps = 1e-6;
  const Eigen::VectorXd qp = integrate(model, q, v, eps), qm = integrate(model, q, v, -eps);
  const Vector3 va = (pointInWorld(model, data, qp, a, p_a_body) - pointInWorld(model, data, qm, a, p_a_body)) / (2 * eps);
  const Vector3 vb = (pointInWorld(model, data, qp, b, p_b_body) - pointInWorld(model, data, qm, b, p_b_body)) / (2 * eps);
  // w = vee(dR - dR^T) / 2 / (2 eps) with dR = R(q + eps v) R(q - eps v)^T.
  const auto omega = [&](int body) -> Vector3 {
    const Matrix3 dR = rotationInWorld(model, data, qp, body) * rotationInWorld(model, data, qm, body).transpose();
    const Matrix3 W = (dR - dR.transpose()) / (4 * eps);
    return Vector3(W(2, 1), W(0, 2), W(1, 0));
  };
  BOOST_TEST(std::abs(J_lin_v - n.dot(va - vb)) < 1e-7);
  BOOST_TEST(std::abs(J_ang_v - axis.dot(omega(a) - omega(b))) < 1e-7);
  BOOST_TEST(std::abs(J_world_v + n.dot(vb)) < 1e-7);
}

namespace {

// The wrench's power per coordinate on `body`'s motion by the propagation the row builders used before
// Data::S_world, kept as the reference: f in body coordinates, paired with each joint's S in its own
// coordinates and carried to the parent by X_up^T.
Eigen::VectorXd propagatedRow(const Model& model, const Data& data, int body, const Force& f_world) {
  Eigen::VectorXd J = Eigen::VectorXd::Zero(model.nv());
  if (body == 0) return J;
  Force f = data.X_body_world[body].apply(f_world);
  for (int i = body; i > 0; i = model.parent(i)) {
    const Joint& j = model.joint(i);
    for (int k = j.idx_v; k < j.idx_v + j.nv; ++k) J[k] = model.motionSubspace().col(k).dot(f.vector());
    f = data.X_up[i].applyInverse(f);
  }
  return J;
}

// f^T J_body with J_body the world Jacobian of the body's own frame (frameJacobian, which runs its own
// kinematics in `scratch`).
Eigen::VectorXd worldJacobianRow(const Model& model, Data& scratch, const Eigen::VectorXd& q, int body,
                                 const Force& f_world) {
  if (body == 0) return Eigen::VectorXd::Zero(model.nv());
  const int frame = model.frameId(model.bodyName(body));
  return frameJacobian(model, scratch, q, frame, ReferenceFrame::World).transpose() * f_world.vector();
}

// Marks the coordinates on `body`'s path to the root.
std::vector<bool> pathCoordinates(const Model& model, int body) {
  std::vector<bool> on_path(model.nv(), false);
  for (int i = body; i > 0; i = model.parent(i)) {
    for (int k = model.joint(i).idx_v; k < model.joint(i).idx_v + model.joint(i).nv; ++k) on_path[k] = true;
  }
  return on_path;
}

}  // namespace

// Rows read from data.S_world equal the old propagation up the tree and the frames' world Jacobians, on
// random trees (fixed and floating base, every joint type) and random body pairs, the world and a body
// against itself or its ancestor included. Tolerance 1e-12 relative to |J_A| + |J_B| (the two bodies'
// terms, so that a pair whose terms cancel is held to the rounding of the terms). Coordinates on neither
// path or on both (above the common ancestor) are exactly zero.
BOOST_AUTO_TEST_CASE(rows_from_world_columns_match_propagation_and_frame_jacobians) {
  for (const bool floating : {false, true}) {
    for (unsigned seed : {41u, 42u, 43u}) {
      std::mt19937 rng(seed);
      const Model model = randomTree({12, false, floating, true, false}, rng);
      Data data(model), scratch(model);
      const Eigen::VectorXd q = randomConfiguration(model, rng);
      forwardKinematics(model, data, q);
      jointJacobians(model, data);
      // S_world's columns are the world Jacobian's columns of every body.
      for (int body = 1; body < model.nbodies(); ++body) {
        const int frame = model.frameId(model.bodyName(body));
        const Matrix6X& J = frameJacobian(model, scratch, q, frame, ReferenceFrame::World);
        const std::vector<bool> on_path = pathCoordinates(model, body);
        for (int k = 0; k < model.nv(); ++k) {
          if (on_path[k]) ABDYN_CHECK_REL(data.S_world.col(k), J.col(k), 1e-12);
        }
      }
      std::uniform_int_distribution<int> pick(0, model.nbodies() - 1);
      RowSet rows(model);
      for (int trial = 0; trial < 30; ++trial) {
        const int a = pick(rng);
        const int b = trial % 5 == 0 ? a : trial % 5 == 1 ? model.parent(std::max(a, 1)) : pick(rng);
        const Vector3 p = randomVector3(rng), n = randomVector3(rng).normalized();
        const bool linear = trial % 2 == 0;
        const Force f = linear ? Force(p.cross(n), n) : Force(n, Vector3::Zero());
        const Eigen::VectorXd& J =
            linear ? addLinearRow(rows, model, data, a, b, p, n).J : addAngularRow(rows, model, data, a, b, n).J;
        const Eigen::VectorXd J_a = propagatedRow(model, data, a, f), J_b = propagatedRow(model, data, b, f);
        const double scale = J_a.norm() + J_b.norm();
        BOOST_TEST((J - (J_a - J_b)).norm() <= 1e-12 * scale);
        const Eigen::VectorXd J_frames =
            worldJacobianRow(model, scratch, q, a, f) - worldJacobianRow(model, scratch, q, b, f);
        BOOST_TEST((J - J_frames).norm() <= 1e-12 * scale);
        const std::vector<bool> on_a = pathCoordinates(model, a), on_b = pathCoordinates(model, b);
        for (int k = 0; k < model.nv(); ++k) {
          if (on_a[k] == on_b[k]) BOOST_TEST(J[k] == 0.0);
        }
        // One body alone, with a sign.
        Eigen::VectorXd J_single = Eigen::VectorXd::Zero(model.nv());
        addWrenchToRow(model, data, a, f, -2.0, J_single);
        BOOST_TEST((J_single + 2.0 * J_a).norm() <= 1e-12 * J_a.norm());
      }
    }
  }
}

// addPairRows builds a joint's rows in one walk: bit for bit the rows of addLinearRow and addAngularRow one by
// one, on random trees (fixed and floating bases) and random body pairs (a body with itself, with its parent,
// any two), with 1 to kMaxPairRows wrenches; a count outside [1, kMaxPairRows] throws naming 'count'.
BOOST_AUTO_TEST_CASE(pair_rows_equal_single_rows) {
  std::mt19937 rng(45);
  for (const bool floating : {false, true}) {
    const Model model = randomTree({10, false, floating, true, false}, rng);
    Data data(model);
    forwardKinematics(model, data, randomConfiguration(model, rng));
    jointJacobians(model, data);
    std::uniform_int_distribution<int> pick(0, model.nbodies() - 1);
    RowSet together(model), alone(model);
    for (int trial = 0; trial < 12; ++trial) {
      const int a = pick(rng);
      const int b = trial % 3 == 0 ? a : trial % 3 == 1 ? model.parent(std::max(a, 1)) : pick(rng);
      const int count = 1 + trial % kMaxPairRows;
      Force f[kMaxPairRows];
      together.clear();
      alone.clear();
      for (int r = 0; r < count; ++r) {
        const Vector3 p = randomVector3(rng), n = randomVector3(rng).normalized();
        f[r] = r % 2 == 0 ? Force(p.cross(n), n) : Force(n, Vector3::Zero());
        const Eigen::VectorXd& J =
            r % 2 == 0 ? addLinearRow(alone, model, data, a, b, p, n).J : addAngularRow(alone, model, data, a, b, n).J;
        BOOST_TEST(J.size() == model.nv());
      }
      BOOST_TEST(addPairRows(together, model, data, a, b, f, count) == 0);
      BOOST_TEST(together.size() == count);
      for (int r = 0; r < count; ++r) BOOST_TEST((together[r].J.array() == alone[r].J.array()).all());
    }
    const auto names_count = [](const InvalidArgument& e) {
      const std::string what = e.what();
      return what.find("abdyn::addPairRows") != std::string::npos && what.find("'count'") != std::string::npos;
    };
    Force f[kMaxPairRows + 1];
    BOOST_CHECK_EXCEPTION(addPairRows(together, model, data, 1, 0, f, 0), InvalidArgument, names_count);
    BOOST_CHECK_EXCEPTION(addPairRows(together, model, data, 1, 0, f, kMaxPairRows + 1), InvalidArgument, names_count);
  }
}

// The row builders refuse data.S_world that does not belong to data.X_body_world, unfilled (forwardKinematics
// only) or stale (forwardKinematics again after jointJacobians), with abdyn::InvalidArgument naming the
// builder and jointJacobians, before adding a row.
BOOST_AUTO_TEST_CASE(row_builders_refuse_stale_world_columns) {
  std::mt19937 rng(44);
  const Model model = randomTree({4, true, false, false, false}, rng);
  const auto names = [](const char* function) {
    return [function](const InvalidArgument& e) {
      const std::string what = e.what();
      return what.find(function) != std::string::npos && what.find("abdyn::jointJacobians") != std::string::npos;
    };
  };
  Data data(model);
  RowSet rows(model);
  Eigen::VectorXd J = Eigen::VectorXd::Zero(model.nv());
  const Eigen::VectorXd q = randomConfiguration(model, rng), v = Eigen::VectorXd::Zero(model.nv());
  forwardKinematics(model, data, q);
  BOOST_CHECK_EXCEPTION(addLinearRow(rows, model, data, 2, 0, Vector3::Zero(), Vector3::UnitX()), InvalidArgument,
                        names("abdyn::addLinearRow"));
  jointJacobians(model, data);
  addAngularRow(rows, model, data, 2, 1, Vector3::UnitZ());
  forwardKinematics(model, data, q);
  BOOST_CHECK_EXCEPTION(addAngularRow(rows, model, data, 2, 1, Vector3::UnitZ()), InvalidArgument,
                        names("abdyn::addAngularRow"));
  BOOST_CHECK_EXCEPTION(addWrenchToRow(model, data, 2, Force(Vector3::UnitZ(), Vector3::Zero()), 1.0, J),
                        InvalidArgument, names("abdyn::addWrenchToRow"));
  const Force wrench(Vector3::UnitZ(), Vector3::Zero());
  BOOST_CHECK_EXCEPTION(addPairRows(rows, model, data, 2, 1, &wrench, 1), InvalidArgument, names("abdyn::addPairRows"));
  BOOST_CHECK_EXCEPTION(addRowJoint(rows, model, data, RowJoint{RowJointType::Ball, 2, 0}, 0.2, 0.0, 0.01, 0),
                        InvalidArgument, names("abdyn::addRowJoint"));
  BOOST_CHECK_EXCEPTION(addGroundContactRows(rows, model, data, v, GroundContactSettings{}, 0.01, 0), InvalidArgument,
                        names("abdyn::addGroundContactRows"));
  BOOST_CHECK_EXCEPTION(addBodyContactRows(rows, model, data, v, GroundContactSettings{}, 0.01, 0), InvalidArgument,
                        names("abdyn::addBodyContactRows"));
  BOOST_TEST(rows.size() == 1);
  jointJacobians(model, data);
  BOOST_TEST(addAngularRow(rows, model, data, 2, 1, Vector3::UnitZ()).J.norm() > 0.0);
}

// M^-1 J^T by articulated-body propagation, by the library's dense path and by Eigen's Cholesky of the
// CRBA mass matrix written out here all agree (1e-10 relative), on a floating tree with every joint type
// and armature.
BOOST_AUTO_TEST_CASE(articulated_and_dense_responses_agree) {
  std::mt19937 rng(22);
  const Model model = randomTree({15, false, true, true, true}, rng);
  Data data(model);
  const Eigen::VectorXd q = randomConfiguration(model, rng);
  const Eigen::VectorXd v = Eigen::VectorXd::Random(model.nv());
  forwardDynamics(model, data, q, v, Eigen::VectorXd::Zero(model.nv()));
  RowSet rows(model);
  for (int r = 0; r < 6; ++r) rows.add().J = Eigen::VectorXd::Random(model.nv());
  RowResponse response(model);
  response.articulated(model, data, rows);
  std::vector<Eigen::VectorXd> articulated;
  for (int r = 0; r < rows.size(); ++r) articulated.push_back(rows.state(r).Minv_Jt);
  response.dense(model, data, q, rows);
  const Eigen::MatrixXd M = massMatrix(model, data, q);
  const Eigen::LLT<Eigen::MatrixXd> llt(M);
  for (int r = 0; r < rows.size(); ++r) {
    const Eigen::VectorXd expected = llt.solve(rows[r].J);
    ABDYN_CHECK_REL(articulated[r], expected, 1e-10);
    ABDYN_CHECK_REL(rows.state(r).Minv_Jt, expected, 1e-10);
  }
}

// The factorized path on the floating humanoid with sparse rows (a joint-space row and a contact-like row
// on a foot, whose J is zero off the foot's ancestors) matches propagation, and the automatic choice
// follows nnz(L): factorized for the humanoid (301 ancestor pairs, 32 bodies), propagation for a
// 100-body chain (4950 pairs).
BOOST_AUTO_TEST_CASE(factorized_responses_on_sparse_rows_and_automatic_choice) {
  UrdfOptions options;
  options.floating_base = true;
  const Model humanoid = loadUrdf(std::string(ABDYN_SOURCE_DIR) + "/models/humanoid.urdf", options);
  Data data(humanoid);
  std::mt19937 rng(5);
  const Eigen::VectorXd q = randomConfiguration(humanoid, rng);
  forwardDynamics(humanoid, data, q, Eigen::VectorXd::Zero(humanoid.nv()), Eigen::VectorXd::Zero(humanoid.nv()));
  forwardKinematics(humanoid, data, q);
  jointJacobians(humanoid, data);
  RowSet rows(humanoid);
  rows.add().J = Eigen::VectorXd::Unit(humanoid.nv(), humanoid.joint("left_knee").idx_v);
  addLinearRow(rows, humanoid, data, humanoid.bodyId("left_foot"), 0, Vector3(0.1, 0.2, -0.8), Vector3(0.0, 0.6, 0.8));
  RowResponse response(humanoid);
  response.articulated(humanoid, data, rows);
  std::vector<Eigen::VectorXd> articulated;
  for (int r = 0; r < rows.size(); ++r) articulated.push_back(rows.state(r).Minv_Jt);
  response.dense(humanoid, data, q, rows);
  for (int r = 0; r < rows.size(); ++r) ABDYN_CHECK_REL(rows.state(r).Minv_Jt, articulated[r], 1e-12);
  BOOST_TEST((response.choose(ResponseMethod::Automatic) == ResponseMethod::Factorized));
  BOOST_TEST((response.choose(ResponseMethod::Articulated) == ResponseMethod::Articulated));

  const Model chain = loadUrdf(std::string(ABDYN_SOURCE_DIR) + "/bench/models/chain_100.urdf");
  BOOST_TEST((RowResponse(chain).choose(ResponseMethod::Automatic) == ResponseMethod::Articulated));
  BOOST_TEST((RowResponse(chain).choose(ResponseMethod::Factorized) == ResponseMethod::Factorized));
}

// With bilateral rows only, PGS row by row (bilateral_block off) converges to the Lagrange-multiplier solution of the dense KKT system
//   [M J^T; J 0] [v+; -lambda] = [M v_free; target]
// solved here by full-pivoting LU: impulses and velocities to 1e-8. Rows (independent, so lambda is unique):
// a ball joint from a 9-link chain's tip to the world, a distance joint between two links and an angular
// row about a random axis between two links.
BOOST_AUTO_TEST_CASE(bilateral_pgs_matches_lagrange_multipliers) {
  std::mt19937 rng(23);
  const Model model = randomTree({9, true, false, false, false}, rng);
  Data data(model);
  const Eigen::VectorXd q = randomConfiguration(model, rng);
  const Eigen::VectorXd v_free = Eigen::VectorXd::Random(model.nv());
  forwardDynamics(model, data, q, v_free, Eigen::VectorXd::Zero(model.nv()));
  forwardKinematics(model, data, q);
  jointJacobians(model, data);
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

  const int nv = model.nv(), m = rows.size();
  const Eigen::MatrixXd M = massMatrix(model, data, q);
  Eigen::MatrixXd K = Eigen::MatrixXd::Zero(nv + m, nv + m);
  Eigen::VectorXd rhs(nv + m);
  K.topLeftCorner(nv, nv) = M;
  rhs.head(nv) = M * v_free;
  Eigen::VectorXd lambda(m);
  for (int r = 0; r < m; ++r) {
    K.block(nv + r, 0, 1, nv) = rows[r].J.transpose();
    K.block(0, nv + r, nv, 1) = rows[r].J;
    rhs[nv + r] = rows[r].target;
    lambda[r] = rows[r].impulse;
  }
  BOOST_REQUIRE_EQUAL(K.bottomLeftCorner(m, nv).fullPivLu().rank(), m);
  const Eigen::VectorXd x = K.fullPivLu().solve(rhs);
  ABDYN_CHECK_REL(lambda, Eigen::VectorXd(-x.tail(m)), 1e-8);
  ABDYN_CHECK_REL(v, Eigen::VectorXd(x.head(nv)), 1e-8);
}

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

// A random tree at a random configuration with a random free velocity (entries in [-1, 1]), after ABA
// (for the articulated responses), forward kinematics and the world columns (for building rows).
struct RandomRowProblem {
  RandomRowProblem(const RandomTreeOptions& options, std::mt19937& rng)
      : model(randomTree(options, rng)), data(model), q(randomConfiguration(model, rng)), v_free(model.nv()) {
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    for (int k = 0; k < model.nv(); ++k) v_free[k] = uniform(rng);
    forwardDynamics(model, data, q, v_free, Eigen::VectorXd::Zero(model.nv()));
    forwardKinematics(model, data, q);
    jointJacobians(model, data);
  }
  Model model;
  Data data;
  Eigen::VectorXd q, v_free;
};

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

}  // namespace

// The bilateral block solves bilateral rows exactly in one sweep: on a 12-link chain (seed 27), a hinge
// joint between links 3 and 9, a ball joint from the tip to the world, a distance joint and an angular
// row (10 independent rows), one sweep from zero impulses gives the Lagrange-multiplier solution of the
// dense KKT system (lagrangeSolution) to 1e-10, without and with softness (cfm 1e-3 on every row). Then a
// copy of the angular row (the same J and target: redundant) is added: it leaves the block, is visited
// alone, and one sweep still gives v+ of the independent rows' solution, with the two copies' impulses
// summing to the one row's (1e-10).
BOOST_AUTO_TEST_CASE(bilateral_block_matches_lagrange_multipliers_in_one_sweep) {
  std::mt19937 rng(27);
  const Model model = randomTree({12, true, false, false, false}, rng);
  Data data(model);
  const Eigen::VectorXd q = randomConfiguration(model, rng);
  const Eigen::VectorXd v_free = Eigen::VectorXd::Random(model.nv());
  forwardDynamics(model, data, q, v_free, Eigen::VectorXd::Zero(model.nv()));
  forwardKinematics(model, data, q);
  jointJacobians(model, data);
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
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
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
  for (int k = 0; k < 4; ++k) {
    ConstraintRow& limit = rows.add();
    limit.J[2 * k] = k % 2 == 0 ? 1.0 : -1.0;
    limit.lo = 0.0;
    limit.hi = 2.0;  // a pushing row with a cap, so that the bilateral rows cannot make it infeasible
    limit.target = 0.3 * uniform(rng);
    ConstraintRow& friction = rows.add();
    friction.J[2 * k + 1] = 1.0;
    friction.hi = 0.2 * (1.5 + uniform(rng));
    friction.lo = -friction.hi;
  }
  ConstraintRow& tied = addAngularRow(rows, model, data, 5, 0, randomVector3(rng).normalized());
  tied.target = -0.4;
  tied.tie = first_limit;
  tied.mu = 0.5;
  for (const auto& [a, b, target] : {std::tuple(2, 5, 0.2), std::tuple(7, 0, -0.1)}) {
    ConstraintRow& row = addAngularRow(rows, model, data, a, b, randomVector3(rng).normalized());
    row.target = target;
    row.lo = -0.5;
    row.hi = 0.5;
  }
  RowResponse response(model);
  response.articulated(model, data, rows);
  const Eigen::MatrixXd M = massMatrix(model, data, q);
  for (double omega : {1.0, 1.5}) {
    Eigen::VectorXd v = v_free;
    const PgsReport report = solveRowsPgs(rows, v, PgsSettings{20000, 1e-12, omega, false});
    BOOST_TEST_MESSAGE("bilateral block among bounded rows, omega " << omega << ": " << report.iterations
                                                                    << " sweeps, residual " << report.residual);
    BOOST_TEST(report.residual <= 1e-12);
    int block = 0;
    for (int r = 0; r < rows.size(); ++r) block += rows.state(r).visit == RowSolverState::Visit::Block;
    BOOST_TEST(block == 4);
    checkBoundedMlcp(rows, M, v_free, v, 1e-12);
  }
}

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
    ConstraintRow& limit = rows.add();
    limit.J[k] = k % 2 == 0 ? 1.0 : -1.0;
    limit.lo = 0.0;
    limit.target = 0.3 * uniform(rng);
    ConstraintRow& friction = rows.add();
    friction.J[k] = 1.0;
    friction.hi = 0.2 * (1.5 + uniform(rng));
    friction.lo = -friction.hi;
    if (k % 3 == 0) {
      ConstraintRow& motor = rows.add();
      motor.J[k] = 1.0;
      motor.target = uniform(rng);
      motor.hi = 0.5;
      motor.lo = -0.5;
    }
  }
  // Bounded, like the unilateral rows on distinct coordinates, so that the problem has a solution.
  for (const auto& [a, b, target] : {std::tuple(2, 5, 0.2), std::tuple(7, 0, -0.1)}) {
    ConstraintRow& row = addAngularRow(rows, model, data, a, b, randomVector3(rng).normalized());
    row.target = target;
    row.lo = -0.5;
    row.hi = 0.5;
  }
  RowResponse response(model);
  response.articulated(model, data, rows);
  const Eigen::MatrixXd M = massMatrix(model, data, q);
  for (double omega : {1.0, 1.5}) {
    Eigen::VectorXd v = v_free;
    const PgsReport report = solveRowsPgs(rows, v, PgsSettings{20000, 1e-12, omega, false});
    BOOST_TEST_MESSAGE("coordinate groups, omega " << omega << ": " << report.iterations << " sweeps, residual "
                                                   << report.residual);
    BOOST_TEST(report.residual <= 1e-12);
    int groups = 0;
    for (int r = 0; r < rows.size(); ++r) groups += rows.state(r).visit == RowSolverState::Visit::CoordinateFirst;
    BOOST_TEST(groups == model.nv());
    checkBoundedMlcp(rows, M, v_free, v, 1e-12);
  }
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

// Bad arguments are an abdyn::InvalidArgument. A body outside the model names the builder and the
// argument, before a row is added.
BOOST_AUTO_TEST_CASE(bad_row_arguments_throw) {
  std::mt19937 rng(25);
  const Model model = randomTree({3, true, false, false, false}, rng);
  Data data(model);
  forwardKinematics(model, data, neutral(model));
  jointJacobians(model, data);
  RowSet rows(model);
  const auto says = [](const char* text, const char* more = "") {
    return [text, more](const InvalidArgument& e) {
      const std::string what = e.what();
      return what.find(text) != std::string::npos && what.find(more) != std::string::npos;
    };
  };
  Eigen::VectorXd J = Eigen::VectorXd::Zero(model.nv());
  BOOST_CHECK_EXCEPTION(addLinearRow(rows, model, data, 1, 4, Vector3::Zero(), Vector3::UnitX()), InvalidArgument,
                        says("abdyn::addLinearRow", "body_b 4"));
  BOOST_CHECK_EXCEPTION(addAngularRow(rows, model, data, -1, 0, Vector3::UnitX()), InvalidArgument,
                        says("abdyn::addAngularRow", "body_a -1"));
  BOOST_CHECK_EXCEPTION(addWrenchToRow(model, data, 9, Force(Vector3::UnitZ(), Vector3::Zero()), 1.0, J),
                        InvalidArgument, says("abdyn::addWrenchToRow", "body 9"));
  BOOST_CHECK_EXCEPTION(addRowJoint(rows, model, data, RowJoint{RowJointType::Hinge, 1, 7}, 0.2, 0.0, 0.01, 0),
                        InvalidArgument, says("abdyn::addRowJoint", "joint.body_b 7"));
  BOOST_TEST(rows.size() == 0);
  BOOST_CHECK_THROW(addLinearRow(rows, model, data, 7, 0, Vector3::Zero(), Vector3::UnitX()), InvalidArgument);
  BOOST_CHECK_THROW(addRowJoint(rows, model, data, RowJoint{RowJointType::Ball, 0, 9}, 0.2, 0.0, 0.01, 0), InvalidArgument);
  BOOST_CHECK_THROW(addRowJoint(rows, model, data, RowJoint{RowJointType::Distance, 1, 1}, 0.2, 0.0, 0.01, 0),
                    InvalidArgument);
  BOOST_CHECK_THROW(addJointMotorRow(rows, model, JointMotor{5, 1.0, 1.0}, 0.01, 0), InvalidArgument);
  BOOST_CHECK_THROW(addJointMotorRow(rows, model, JointMotor{0, 1.0, -1.0}, 0.01, 0), InvalidArgument);
  rows.clear();
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

namespace {
// A body on a spherical joint at the world origin (its quaternion is q) and a ball row joint between the
// world (A) and it (B), with swing and twist limits. Returns the rows at q.
Model sphericalBody() {
  ModelBuilder b("spherical");
  JointSpec ball;
  ball.type = JointType::Spherical;
  ball.name = "ball";
  b.addBody(0, ball, Plx(), RigidBodyInertia(1.0, Vector3(0, 0, -0.5), Vector3(0.1, 0.1, 0.01).asDiagonal()), "rod");
  return b.build();
}
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
