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
  const std::string root = ABDYN_SOURCE_DIR;
  const DynamicsOptions rbdl_terms{false, false};
  int files = 0, floating_files = 0;
  double worst_fd = 0, worst_id = 0, worst_Mx = 0;
  for (const auto& entry : std::filesystem::directory_iterator(root + "/tests/reference/rbdl")) {
    std::ifstream in(entry.path());
    const json ref = json::parse(in);
    const std::string name = ref["model"].get<std::string>();
    UrdfOptions options;
    options.floating_base = ref["base"] == "floating";
    options.accept_invalid_inertia = true;  // ANYmal's published inertias are degenerate
    const Model model = loadUrdf(root + "/bench/models/" + name + ".urdf", options);
    BOOST_REQUIRE(model.nq() == ref["nq"].get<int>());
    BOOST_REQUIRE(model.nv() == ref["nv"].get<int>());
    const JointOrder order = test::peerJointOrder(ref["dof_names"], options.floating_base);
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
      BOOST_TEST(e_fd <= 1e-9, entry.path().filename() << ": ABA " << e_fd);
      BOOST_TEST(e_id <= 1e-9, entry.path().filename() << ": RNEA " << e_id);
      BOOST_TEST(e_Mx <= 1e-9, entry.path().filename() << ": CRBA " << e_Mx);
      worst_fd = std::max(worst_fd, e_fd);
      worst_id = std::max(worst_id, e_id);
      worst_Mx = std::max(worst_Mx, e_Mx);
    }
    ++files;
    floating_files += options.floating_base;
  }
  BOOST_TEST(files == 6);  // every file in tests/reference/rbdl
  BOOST_TEST(floating_files == 2);
  BOOST_TEST_MESSAGE(files << " files; worst relative errors against RBDL: ABA " << worst_fd << ", RNEA " << worst_id
                           << ", M x " << worst_Mx);
}

// The bundled models (models/*.urdf) against RBDL's outputs in tests/reference/bundled/rbdl/, written by
// tools/reference/reference_rbdl: ABA, RNEA, the full mass matrix and every link's world pose, in RBDL's
// native layout, converted only through the adapter.
BOOST_AUTO_TEST_CASE(bundled_models_agree_with_rbdl) {
  const std::string root = ABDYN_SOURCE_DIR;
  const DynamicsOptions rbdl_terms{false, false};
  int files = 0, floating_files = 0;
  test::Worst worst;
  for (const auto& entry : std::filesystem::directory_iterator(root + "/tests/reference/bundled/rbdl")) {
    std::ifstream in(entry.path());
    const json ref = json::parse(in);
    UrdfOptions options;
    options.floating_base = ref["base"] == "floating";
    const Model model = loadUrdf(root + "/models/" + ref["model"].get<std::string>() + ".urdf", options);
    BOOST_REQUIRE(model.nq() == ref["nq"].get<int>());
    BOOST_REQUIRE(model.nv() == ref["nv"].get<int>());
    test::compareBundled(ref, model, rbdl_terms, &rbdl::stateToAbdyn, &rbdl::stateFromAbdyn, 1e-9, worst);
    ++files;
    floating_files += options.floating_base;
  }
  BOOST_TEST(files == 12);  // nine bundled models fixed, three of them floating too
  BOOST_TEST(floating_files == 3);
  BOOST_TEST_MESSAGE(files << " bundled files; worst relative errors against RBDL: ABA " << worst.fd << ", RNEA "
                           << worst.id << ", CRBA " << worst.M << ", link poses " << worst.pose);
}
