// Rows (rows.cpp): the linear, angular and pair rows' Jacobians read from the world columns, and the row
// builders' argument checks.
#include <boost/test/unit_test.hpp>

#include <random>
#include <string>
#include <vector>

#include "abdyn/algorithms/jacobian.hpp"
#include "abdyn/algorithms/kinematics.hpp"
#include "abdyn/constraints/row_contacts.hpp"
#include "abdyn/constraints/row_joints.hpp"
#include "abdyn/constraints/row_tree_joints.hpp"
#include "abdyn/constraints/rows.hpp"
#include "abdyn/error.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/random_model.hpp"
#include "random_row_problem.hpp"
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
  RandomRowProblem problem({8, false, true, true, false}, rng);
  auto& [model, data, q, v] = problem;
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
}
