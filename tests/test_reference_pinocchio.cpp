#define BOOST_TEST_MODULE reference_pinocchio
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "abdyn/abdyn.hpp"
#include "reference_json.hpp"
#include "test_helpers.hpp"

// abdyn against Pinocchio 3.7.0's outputs on the same URDFs (tests/reference/README.md), converted only
// through abdyn::pinocchio::stateToAbdyn / stateFromAbdyn: floating base q = [x y z qx qy qz qw],
// its velocity, acceleration and force [linear; angular] in the body frame; joints matched by name.
// Pinocchio includes armature and ignores URDF damping.

using namespace abdyn;
using nlohmann::json;

using test::vec;

BOOST_AUTO_TEST_CASE(agrees_with_pinocchio) {
  const std::string root = ABDYN_SOURCE_DIR;
  const DynamicsOptions pinocchio_terms{true, false};
  int files = 0;
  double worst_fd = 0, worst_id = 0, worst_M = 0;
  for (const auto& entry : std::filesystem::directory_iterator(root + "/tests/reference/pinocchio")) {
    std::ifstream in(entry.path());
    const json ref = json::parse(in);
    const std::string name = ref["model"].get<std::string>();
    UrdfOptions options;
    options.floating_base = ref["base"] == "floating";
    options.accept_invalid_inertia = true;  // Talos' and ANYmal's published inertias are degenerate
    const Model model = loadUrdf(root + "/bench/models/" + name + ".urdf", options);
    BOOST_REQUIRE(model.nv() == ref["nv"].get<int>());
    const JointOrder order = test::peerJointOrder(ref["dof_names"], options.floating_base);
    Data data(model);
    for (const json& s : ref["states"]) {
      const Eigen::VectorXd q_pin = vec(s["q"]);
      State st = pinocchio::stateToAbdyn(model, {q_pin, vec(s["v"]), {}, vec(s["tau"])}, order);
      st.qdd = forwardDynamics(model, data, st.q, st.v, st.tau, pinocchio_terms);
      const double e_fd = test::relErr(pinocchio::stateFromAbdyn(model, st, order).qdd, vec(s["fd_qdd"]));
      st = pinocchio::stateToAbdyn(model, {q_pin, vec(s["v"]), vec(s["acc"]), {}}, order);
      st.tau = inverseDynamics(model, data, st.q, st.v, st.qdd, pinocchio_terms);
      st.qdd.resize(0);
      const double e_id = test::relErr(pinocchio::stateFromAbdyn(model, st, order).tau, vec(s["id_tau"]));
      // Column k of Pinocchio's M is M times the unit velocity e_k (in Pinocchio's layout), as a force.
      const Eigen::MatrixXd M = massMatrix(model, data, st.q, pinocchio_terms);
      Eigen::MatrixXd M_pin(model.nv(), model.nv()), Mref(model.nv(), model.nv());
      for (int k = 0; k < model.nv(); ++k) {
        State e = pinocchio::stateToAbdyn(model, {q_pin, Eigen::VectorXd::Unit(model.nv(), k), {}, {}}, order);
        e.tau = M * e.v;
        M_pin.col(k) = pinocchio::stateFromAbdyn(model, e, order).tau;
        Mref.row(k) = vec(s["M"][static_cast<size_t>(k)]).transpose();
      }
      const double e_M = test::relErr(M_pin, Mref);
      BOOST_TEST(e_fd <= 1e-9, entry.path().filename() << ": ABA " << e_fd);
      BOOST_TEST(e_id <= 1e-9, entry.path().filename() << ": RNEA " << e_id);
      BOOST_TEST(e_M <= 1e-9, entry.path().filename() << ": CRBA " << e_M);
      worst_fd = std::max(worst_fd, e_fd);
      worst_id = std::max(worst_id, e_id);
      worst_M = std::max(worst_M, e_M);
    }
    ++files;
  }
  BOOST_TEST(files == 15);  // every file in tests/reference/pinocchio
  BOOST_TEST_MESSAGE(files << " files; worst relative errors against Pinocchio: ABA " << worst_fd << ", RNEA " << worst_id
                           << ", CRBA " << worst_M);
}

// The bundled models (models/*.urdf) against Pinocchio's outputs in tests/reference/bundled/pinocchio/,
// written by tools/reference/reference_pinocchio: ABA, RNEA, the full mass matrix and every link's world
// pose, converted only through the adapter (continuous joints are (cos, sin) in Pinocchio's q).
BOOST_AUTO_TEST_CASE(bundled_models_agree_with_pinocchio) {
  const std::string root = ABDYN_SOURCE_DIR;
  const DynamicsOptions pinocchio_terms{true, false};
  int files = 0, floating_files = 0;
  test::Worst worst;
  for (const auto& entry : std::filesystem::directory_iterator(root + "/tests/reference/bundled/pinocchio")) {
    std::ifstream in(entry.path());
    const json ref = json::parse(in);
    UrdfOptions options;
    options.floating_base = ref["base"] == "floating";
    const Model model = loadUrdf(root + "/models/" + ref["model"].get<std::string>() + ".urdf", options);
    BOOST_REQUIRE(model.nv() == ref["nv"].get<int>());
    test::compareBundled(ref, model, pinocchio_terms, &pinocchio::stateToAbdyn, &pinocchio::stateFromAbdyn, 1e-9,
                         worst);
    ++files;
    floating_files += options.floating_base;
  }
  BOOST_TEST(files == 12);  // nine bundled models fixed, three of them floating too
  BOOST_TEST(floating_files == 3);
  BOOST_TEST_MESSAGE(files << " bundled files; worst relative errors against Pinocchio: ABA " << worst.fd << ", RNEA "
                           << worst.id << ", CRBA " << worst.M << ", link poses " << worst.pose);
}

// The loader's pattern files (tests/models/patterns/) that abdyn loads with default options,
// against Pinocchio's outputs in tests/reference/patterns/pinocchio/ (the list and why: its README):
// welded point masses and rods, a rounding-level and a small indefinite welded inertia, a triangle
// violation (kept as written by both), a root link named "world", mimics (independent joints for the
// unconstrained dynamics of both), negative limits, elements urdfdom skips, and several at once. Same
// comparison and tolerance as the bundled models.
BOOST_AUTO_TEST_CASE(loader_patterns_agree_with_pinocchio) {
  const std::string root = ABDYN_SOURCE_DIR;
  const DynamicsOptions pinocchio_terms{true, false};
  int files = 0, floating_files = 0;
  test::Worst worst;
  for (const auto& entry : std::filesystem::directory_iterator(root + "/tests/reference/patterns/pinocchio")) {
    std::ifstream in(entry.path());
    const json ref = json::parse(in);
    UrdfOptions options;
    options.floating_base = ref["base"] == "floating";
    const Model model = loadUrdf(root + "/tests/models/patterns/" + ref["model"].get<std::string>() + ".urdf", options);
    BOOST_REQUIRE(model.nv() == ref["nv"].get<int>());
    test::compareBundled(ref, model, pinocchio_terms, &pinocchio::stateToAbdyn, &pinocchio::stateFromAbdyn, 1e-9,
                         worst);
    ++files;
    floating_files += options.floating_base;
  }
  BOOST_TEST(files == 12);  // ten pattern files fixed, two of them floating too
  BOOST_TEST(floating_files == 2);
  BOOST_TEST_MESSAGE(files << " pattern files; worst relative errors against Pinocchio: ABA " << worst.fd << ", RNEA "
                           << worst.id << ", CRBA " << worst.M << ", link poses " << worst.pose);
}
