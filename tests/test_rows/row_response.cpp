// Row responses (row_response.cpp): M^-1 J^T by articulated-body propagation, by the dense mass matrix and
// by its sparse factor, and the automatic choice between them.
#include <boost/test/unit_test.hpp>

#include <Eigen/Cholesky>

#include <random>
#include <string>
#include <vector>

#include "abdyn/algorithms/aba.hpp"
#include "abdyn/algorithms/crba.hpp"
#include "abdyn/algorithms/jacobian.hpp"
#include "abdyn/algorithms/kinematics.hpp"
#include "abdyn/constraints/row_response.hpp"
#include "abdyn/constraints/rows.hpp"
#include "abdyn/io/urdf.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/random_model.hpp"
#include "random_row_problem.hpp"
#include "test_helpers.hpp"

using namespace abdyn;
using namespace abdyn::test;

// M^-1 J^T by articulated-body propagation, by the library's dense path and by Eigen's Cholesky of the
// CRBA mass matrix written out here all agree (1e-10 relative), on a floating tree with every joint type
// and armature.
BOOST_AUTO_TEST_CASE(articulated_and_dense_responses_agree) {
  std::mt19937 rng(22);
  RandomRowProblem problem({15, false, true, true, true}, rng);
  auto& [model, data, q, v_free] = problem;
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
