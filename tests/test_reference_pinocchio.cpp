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
  const DynamicsOptions pinocchio_terms{true, false};
  test::Worst worst;
  const auto check = [&](const json& ref, const Model& model, const std::string& name) {
    const JointOrder order = test::peerJointOrder(ref["dof_names"], ref["base"] == "floating");
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
      worst.check(name, 1e-9, e_fd, e_id, e_M);
    }
  };
  UrdfOptions options;
  options.accept_invalid_inertia = true;  // Talos' and ANYmal's published inertias are degenerate
  const test::ReferenceFiles read = test::forEachReference("tests/reference/pinocchio", "bench/models", check, options);
  BOOST_TEST(read.files == 15);  // every file in tests/reference/pinocchio
  BOOST_TEST_MESSAGE(read.files << " files; worst relative errors against Pinocchio: ABA " << worst.fd << ", RNEA "
                                << worst.id << ", CRBA " << worst.M);
}

namespace {

// compareBundled (1e-9) on every file of `references` with the models of `models`, the worst errors
// reported as those of the `what` files.
test::ReferenceFiles agreeWithPinocchio(const char* references, const char* models, const char* what) {
  const DynamicsOptions pinocchio_terms{true, false};
  test::Worst worst;
  const auto check = [&](const json& ref, const Model& model, const std::string&) {
    test::compareBundled(ref, model, pinocchio_terms, &pinocchio::stateToAbdyn, &pinocchio::stateFromAbdyn, 1e-9, worst);
  };
  const test::ReferenceFiles read = test::forEachReference(references, models, check);
  BOOST_TEST_MESSAGE(read.files << " " << what << " files; worst relative errors against Pinocchio: ABA " << worst.fd
                                << ", RNEA " << worst.id << ", CRBA " << worst.M << ", link poses " << worst.pose);
  return read;
}

}  // namespace

// The bundled models (models/*.urdf) against Pinocchio's outputs in tests/reference/bundled/pinocchio/,
// written by tools/reference/reference_pinocchio: ABA, RNEA, the full mass matrix and every link's world
// pose, converted only through the adapter (continuous joints are (cos, sin) in Pinocchio's q).
BOOST_AUTO_TEST_CASE(bundled_models_agree_with_pinocchio) {
  const test::ReferenceFiles read = agreeWithPinocchio("tests/reference/bundled/pinocchio", "models", "bundled");
  BOOST_TEST(read.files == 12);  // nine bundled models fixed, three of them floating too
  BOOST_TEST(read.floating_files == 3);
}

// The loader's pattern files (tests/models/patterns/) that abdyn loads with default options,
// against Pinocchio's outputs in tests/reference/patterns/pinocchio/ (the list and why: its README):
// welded point masses and rods, a rounding-level and a small indefinite welded inertia, a triangle
// violation (kept as written by both), a root link named "world", mimics (independent joints for the
// unconstrained dynamics of both), negative limits, elements urdfdom skips, and several at once. Same
// comparison and tolerance as the bundled models.
BOOST_AUTO_TEST_CASE(loader_patterns_agree_with_pinocchio) {
  const test::ReferenceFiles read =
      agreeWithPinocchio("tests/reference/patterns/pinocchio", "tests/models/patterns", "pattern");
  BOOST_TEST(read.files == 12);  // ten pattern files fixed, two of them floating too
  BOOST_TEST(read.floating_files == 2);
}
