#define BOOST_TEST_MODULE reference_rbdl
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "abdyn/abdyn.hpp"
#include "reference_json.hpp"
#include "test_helpers.hpp"

// abdyn against RBDL 3.3.1's outputs on the same URDFs (tests/reference/README.md), in RBDL's native
// layout, converted only through abdyn::rbdl::stateToAbdyn / stateFromAbdyn: the floating base's w at
// the end of q, its velocity, acceleration and force linear in the world and angular in the body.
// RBDL's dynamics have no armature and no joint damping.

using namespace abdyn;
using nlohmann::json;

using test::vec;

BOOST_AUTO_TEST_CASE(agrees_with_rbdl_through_the_adapter) {
  const DynamicsOptions rbdl_terms{false, false};
  test::Worst worst;  // M: the error of M x
  const auto check = [&](const json& ref, const Model& model, const std::string& name) {
    BOOST_REQUIRE(model.nq() == ref["nq"].get<int>());
    const JointOrder order = test::peerJointOrder(ref["dof_names"], ref["base"] == "floating");
    const Eigen::VectorXd x_rbdl = vec(ref["Mx_x"]);
    Data data(model);
    for (const json& s : ref["states"]) {
      // Forward dynamics: RBDL's (Q, QDot, Tau) in, abdyn's qdd out in RBDL's layout.
      State st = rbdl::stateToAbdyn(model, {vec(s["q"]), vec(s["v"]), {}, vec(s["tau"])}, order);
      st.qdd = forwardDynamics(model, data, st.q, st.v, st.tau, rbdl_terms);
      const double e_fd = test::relErr(rbdl::stateFromAbdyn(model, st, order).qdd, vec(s["fd_qdd"]));
      // Inverse dynamics with RBDL's QDDot.
      st = rbdl::stateToAbdyn(model, {vec(s["q"]), vec(s["v"]), vec(s["acc"]), {}}, order);
      st.tau = inverseDynamics(model, data, st.q, st.v, st.qdd, rbdl_terms);
      st.qdd.resize(0);
      const double e_id = test::relErr(rbdl::stateFromAbdyn(model, st, order).tau, vec(s["id_tau"]));
      // RBDL's mass matrix (native layout; the file's Mx is in the canonical one) times x: x is a
      // velocity in RBDL's layout, M x a generalized force, so M_rbdl = T^-T M T^-1 for v_rbdl = T v.
      Eigen::MatrixXd M_rbdl(model.nv(), model.nv());
      for (int r = 0; r < model.nv(); ++r) M_rbdl.row(r) = vec(s["M"][static_cast<size_t>(r)]).transpose();
      st = rbdl::stateToAbdyn(model, {vec(s["q"]), x_rbdl, {}, {}}, order);
      st.tau = massMatrix(model, data, st.q, rbdl_terms) * st.v;
      const Eigen::VectorXd Mx_rbdl = M_rbdl * x_rbdl;
      const double e_Mx = test::relErr(rbdl::stateFromAbdyn(model, st, order).tau, Mx_rbdl);
      worst.check(name, 1e-9, e_fd, e_id, e_Mx);
    }
  };
  UrdfOptions options;
  options.accept_invalid_inertia = true;  // ANYmal's published inertias are degenerate
  const test::ReferenceFiles read = test::forEachReference("tests/reference/rbdl", "bench/models", check, options);
  BOOST_TEST(read.files == 6);  // every file in tests/reference/rbdl
  BOOST_TEST(read.floating_files == 2);
  BOOST_TEST_MESSAGE(read.files << " files; worst relative errors against RBDL: ABA " << worst.fd << ", RNEA " << worst.id
                                << ", M x " << worst.M);
}

// The bundled models (models/*.urdf) against RBDL's outputs in tests/reference/bundled/rbdl/, written by
// tools/reference/reference_rbdl: ABA, RNEA, the full mass matrix and every link's world pose, in RBDL's
// native layout, converted only through the adapter.
BOOST_AUTO_TEST_CASE(bundled_models_agree_with_rbdl) {
  const DynamicsOptions rbdl_terms{false, false};
  test::Worst worst;
  const auto check = [&](const json& ref, const Model& model, const std::string&) {
    BOOST_REQUIRE(model.nq() == ref["nq"].get<int>());  // RBDL's q is abdyn's
    test::compareBundled(ref, model, rbdl_terms, &rbdl::stateToAbdyn, &rbdl::stateFromAbdyn, 1e-9, worst);
  };
  const test::ReferenceFiles read = test::forEachReference("tests/reference/bundled/rbdl", "models", check);
  BOOST_TEST(read.files == 12);  // nine bundled models fixed, three of them floating too
  BOOST_TEST(read.floating_files == 3);
  BOOST_TEST_MESSAGE(read.files << " bundled files; worst relative errors against RBDL: ABA " << worst.fd << ", RNEA "
                                << worst.id << ", CRBA " << worst.M << ", link poses " << worst.pose);
}
