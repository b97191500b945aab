#define BOOST_TEST_MODULE reference_pinocchio_derivatives
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <Eigen/Geometry>
#include <nlohmann/json.hpp>

#include "abdyn/abdyn.hpp"
#include "reference_json.hpp"
#include "test_helpers.hpp"

// abdyn's inverseDynamicsDerivatives and forwardDynamicsDerivatives against Pinocchio 3.7.0's
// computeRNEADerivatives and computeABADerivatives, stored by tools/reference/reference_pinocchio in
// tests/reference/{bundled,patterns}/pinocchio/ (the states that have the fields dtau_dq ... Minv).
//
// Converting a derivative matrix (docs/derivatives.md, "Other libraries' tangents"). At a state (q, v)
// the adapter maps abdyn's velocity, acceleration and joint force linearly to Pinocchio's:
//   v_P = P v,   qdd_P = P qdd,   tau_P = F tau,
// where P and F are read off the adapter (column k is the conversion of the unit vector e_k). For
// Pinocchio P permutes joints (matched by name) and swaps the free flyer's two 3-blocks ([w; v] ->
// [v; w], both in the body frame); F = P^-T = P, so power is the same in both layouts. Neither depends on
// q or v, and accelerations need no velocity term (qdd_P = d/dt (P v)): checked at every state below.
// Both libraries perturb q on the right in the same body-frame coordinates as their velocity,
// q -> q exp(xi), so Pinocchio's tangent vector of the same perturbation is xi_P = P xi: the tangent
// map is P as well, exact (the same group element, not only to first order) and independent of q.
// With a constant map the chain rule has no extra terms:
//   dtau_dq_P = F dtau_dq P^-1,   dtau_dv_P = F dtau_dv P^-1,
//   ddq_dq_P  = P dqdd_dq P^-1,   ddq_dv_P  = P dqdd_dv P^-1,   Minv_P = P Minv F^-1.
// (A layout whose map T(q) depends on q, such as MuJoCo's world-frame linear velocity, would add
// F'(q) tau to d tau / d q and T'(q) qdd plus the velocity term's derivative to d qdd / d q.)
// The second test checks the tangent map independently of that derivation: centred differences of
// abdyn's dynamics along Pinocchio's own free-flyer integrate, written here from its definition.
//
// Tolerance 1e-9 relative in the Frobenius norm, as for ABA, RNEA and CRBA against Pinocchio: both sides
// are exact analytic recursions in double precision; their rounding differs by a few 1e-16 times
// cond(M) (at most about 1e4 on these models and states).

using namespace abdyn;
using nlohmann::json;

using test::vec;

namespace {

Eigen::MatrixXd mat(const json& j) {
  Eigen::MatrixXd M(j.size(), j[0].size());
  for (size_t r = 0; r < j.size(); ++r) M.row(static_cast<Eigen::Index>(r)) = vec(j[r]).transpose();
  return M;
}

/// The adapter's linear maps at abdyn's configuration q: v_P = P v, tau_P = F tau.
struct LayoutMaps {
  Eigen::MatrixXd P, F;
};

LayoutMaps layoutMaps(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v, const JointOrder& order) {
  const int nv = model.nv();
  LayoutMaps m{Eigen::MatrixXd(nv, nv), Eigen::MatrixXd(nv, nv)};
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(nv);
  const Eigen::VectorXd qdd_offset = pinocchio::stateFromAbdyn(model, {q, v, zero, {}}, order).qdd;
  BOOST_TEST(qdd_offset.norm() == 0.0);  // no velocity term in the acceleration map
  for (int k = 0; k < nv; ++k) {
    const Eigen::VectorXd e = Eigen::VectorXd::Unit(nv, k);
    const State s = pinocchio::stateFromAbdyn(model, {q, e, {}, e}, order);
    m.P.col(k) = s.v;
    m.F.col(k) = s.tau;
    // The acceleration map is the velocity map.
    BOOST_TEST(test::relErr(pinocchio::stateFromAbdyn(model, {q, v, e, {}}, order).qdd, s.v) == 0.0);
  }
  // P is a permutation, so P^-1 = P^T, and F = P.
  BOOST_TEST((m.P.transpose() * m.P - Eigen::MatrixXd::Identity(nv, nv)).norm() == 0.0);
  BOOST_TEST((m.F - m.P).norm() == 0.0);
  return m;
}

struct Worst {
  double dtau_dq = 0, dtau_dv = 0, ddq_dq = 0, ddq_dv = 0, Minv = 0;
};

/// Compares every state of one file that carries derivatives; returns how many did.
int compareDerivatives(const json& ref, const Model& model, Worst& worst) {
  const DynamicsOptions pinocchio_terms{true, false};  // armature (zero from a URDF), no damping
  const std::string label = ref["model"].get<std::string>() + " (" + ref["base"].get<std::string>() + ")";
  const JointOrder order = test::peerJointOrder(ref["dof_names"], ref["base"] == "floating");
  Data data(model);
  int compared = 0;
  for (const json& s : ref["states"]) {
    if (!s.contains("dtau_dq")) continue;
    const State in = pinocchio::stateToAbdyn(model, {vec(s["q"]), vec(s["v"]), vec(s["acc"]), vec(s["tau"])}, order);
    const LayoutMaps m = layoutMaps(model, in.q, in.v, order);
    const Eigen::MatrixXd& P = m.P;
    const Eigen::MatrixXd& F = m.F;
    const Eigen::MatrixXd Pinv = P.transpose();
    const Eigen::MatrixXd Finv = F.transpose();

    inverseDynamicsDerivatives(model, data, in.q, in.v, in.qdd, pinocchio_terms);
    const double e_tq = test::relErr(F * data.dtau_dq * Pinv, mat(s["dtau_dq"]));
    const double e_tv = test::relErr(F * data.dtau_dv * Pinv, mat(s["dtau_dv"]));
    forwardDynamicsDerivatives(model, data, in.q, in.v, in.tau, pinocchio_terms);
    const double e_aq = test::relErr(P * data.dqdd_dq * Pinv, mat(s["ddq_dq"]));
    const double e_av = test::relErr(P * data.dqdd_dv * Pinv, mat(s["ddq_dv"]));
    const double e_mi = test::relErr(P * data.dqdd_dtau * Finv, mat(s["Minv"]));

    BOOST_TEST(e_tq <= 1e-9, label << ": dtau_dq " << e_tq);
    BOOST_TEST(e_tv <= 1e-9, label << ": dtau_dv " << e_tv);
    BOOST_TEST(e_aq <= 1e-9, label << ": ddq_dq " << e_aq);
    BOOST_TEST(e_av <= 1e-9, label << ": ddq_dv " << e_av);
    BOOST_TEST(e_mi <= 1e-9, label << ": Minv " << e_mi);
    worst.dtau_dq = std::max(worst.dtau_dq, e_tq);
    worst.dtau_dv = std::max(worst.dtau_dv, e_tv);
    worst.ddq_dq = std::max(worst.ddq_dq, e_aq);
    worst.ddq_dv = std::max(worst.ddq_dv, e_av);
    worst.Minv = std::max(worst.Minv, e_mi);
    ++compared;
  }
  return compared;
}

json readJson(const std::filesystem::path& path) {
  std::ifstream in(path);
  return json::parse(in);
}

void report(const char* what, int files, const Worst& w) {
  BOOST_TEST_MESSAGE(what << ": " << files << " files; worst relative errors against Pinocchio: dtau_dq " << w.dtau_dq
                          << ", dtau_dv " << w.dtau_dv << ", ddq_dq " << w.ddq_dq << ", ddq_dv " << w.ddq_dv
                          << ", Minv " << w.Minv);
}

/// Pinocchio's free-flyer integrate, from its definition (SE(3) exponential on the right, twist
/// [v; w] in the body frame), on q = (x, y, z, qx, qy, qz, qw) at the front of Pinocchio's q.
Eigen::VectorXd freeFlyerIntegrate(Eigen::VectorXd q, const Vector6& xi) {
  const Vector3 v = xi.head<3>(), w = xi.tail<3>();
  const double t = w.norm();
  Matrix3 W;
  W << 0, -w.z(), w.y(), w.z(), 0, -w.x(), -w.y(), w.x(), 0;
  // V = 1 + (1 - cos t)/t^2 W + (t - sin t)/t^3 W^2; the series below 1e-3 keeps full precision.
  const double a = t < 1e-3 ? 0.5 - t * t / 24 : (1 - std::cos(t)) / (t * t);
  const double b = t < 1e-3 ? 1.0 / 6 - t * t / 120 : (t - std::sin(t)) / (t * t * t);
  const Matrix3 V = Matrix3::Identity() + a * W + b * W * W;
  const Eigen::Quaterniond r(q[6], q[3], q[4], q[5]);
  const Eigen::Quaterniond dr(t > 0 ? Eigen::AngleAxisd(t, w / t) : Eigen::AngleAxisd(0, Vector3::UnitX()));
  const Eigen::Quaterniond r2 = r * dr;
  q.head<3>() += r.toRotationMatrix() * V * v;
  q.segment<4>(3) << r2.x(), r2.y(), r2.z(), r2.w();
  return q;
}

}  // namespace

BOOST_AUTO_TEST_CASE(bundled_derivatives_agree_with_pinocchio) {
  int states = 0;
  Worst worst;
  const auto check = [&](const json& ref, const Model& model, const std::string& name) {
    const int n = compareDerivatives(ref, model, worst);
    BOOST_TEST(n >= 1, name << " has no state with derivatives");
    states += n;
  };
  const test::ReferenceFiles read = test::forEachReference("tests/reference/bundled/pinocchio", "models", check);
  BOOST_TEST(read.files == 12);  // nine bundled models fixed, three of them floating too
  BOOST_TEST(read.floating_files == 3);
  BOOST_TEST_MESSAGE(states << " states");
  report("bundled models", read.files, worst);
}

BOOST_AUTO_TEST_CASE(pattern_derivatives_agree_with_pinocchio) {
  Worst worst;
  const auto check = [&](const json& ref, const Model& model, const std::string& name) {
    BOOST_TEST(compareDerivatives(ref, model, worst) >= 1, name << " has no derivatives");
  };
  const test::ReferenceFiles read = test::forEachReference("tests/reference/patterns/pinocchio", "tests/models/patterns", check);
  BOOST_TEST(read.files == 12);  // tests/reference/README.md lists them
  report("loader patterns", read.files, worst);
}

// The tangent map, checked without the derivation above: the columns of Pinocchio's stored d qdd / d q
// and d tau / d q for the free flyer are centred differences of abdyn's forward and inverse dynamics
// along Pinocchio's own integrate (freeFlyerIntegrate), with states and results converted by the
// adapter alone. Step 1e-6: truncation O(h^2) ~ 1e-12 and rounding ~ 1e-16 / h ~ 1e-10 relative, so
// 1e-6 is a safe margin. Only the rotational half of the map is observable here: translating a floating
// robot changes none of its body-frame dynamics (gravity is uniform), so the three translation columns are
// zero whatever frame the translation is taken in (checked too). A rotation taken in world coordinates
// (q -> exp(xi) q) fails this test by O(1).
BOOST_AUTO_TEST_CASE(free_flyer_columns_are_differences_along_pinocchio_integrate) {
  const std::string root = ABDYN_SOURCE_DIR;
  const DynamicsOptions pinocchio_terms{true, false};
  const double h = 1e-6;
  int files = 0;
  for (const std::string name : {"iiwa7", "quadruped", "humanoid"}) {
    const json ref = readJson(root + "/tests/reference/bundled/pinocchio/" + name + "_floating.json");
    UrdfOptions options;
    options.floating_base = true;
    const Model model = loadUrdf(root + "/models/" + name + ".urdf", options);
    const JointOrder order = test::peerJointOrder(ref["dof_names"], true);
    BOOST_REQUIRE(ref["dof_names"][0] == "__root__:vx");  // the free flyer is first in Pinocchio's v
    Data data(model);
    const json& s = ref["states"][0];
    const Eigen::VectorXd q_P = vec(s["q"]), v_P = vec(s["v"]), acc_P = vec(s["acc"]), tau_P = vec(s["tau"]);
    const auto qdd_P = [&](const Eigen::VectorXd& q) {
      State st = pinocchio::stateToAbdyn(model, {q, v_P, {}, tau_P}, order);
      st.qdd = forwardDynamics(model, data, st.q, st.v, st.tau, pinocchio_terms);
      st.tau.resize(0);
      return pinocchio::stateFromAbdyn(model, st, order).qdd;
    };
    const auto tau_P_of = [&](const Eigen::VectorXd& q) {
      State st = pinocchio::stateToAbdyn(model, {q, v_P, acc_P, {}}, order);
      st.tau = inverseDynamics(model, data, st.q, st.v, st.qdd, pinocchio_terms);
      st.qdd.resize(0);
      return pinocchio::stateFromAbdyn(model, st, order).tau;
    };
    const Eigen::MatrixXd ddq_dq = mat(s["ddq_dq"]), dtau_dq = mat(s["dtau_dq"]);
    BOOST_TEST(ddq_dq.leftCols<3>().norm() <= 1e-12 * ddq_dq.norm());
    BOOST_TEST(dtau_dq.leftCols<3>().norm() <= 1e-12 * dtau_dq.norm());
    for (int k = 0; k < 6; ++k) {
      const Vector6 e = Vector6::Unit(k) * h;
      const Eigen::VectorXd qp = freeFlyerIntegrate(q_P, e), qm = freeFlyerIntegrate(q_P, -e);
      const Eigen::VectorXd dqdd = (qdd_P(qp) - qdd_P(qm)) / (2 * h);
      const Eigen::VectorXd dtau = (tau_P_of(qp) - tau_P_of(qm)) / (2 * h);
      ABDYN_CHECK_NEAR(dqdd, Eigen::VectorXd(ddq_dq.col(k)), 1e-6);
      ABDYN_CHECK_NEAR(dtau, Eigen::VectorXd(dtau_dq.col(k)), 1e-6);
    }
    ++files;
  }
  BOOST_TEST(files == 3);
}
