#pragma once
// Reading the peer reference files of tests/reference/ (JSON written by Pinocchio and RBDL runs).

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "abdyn/abdyn.hpp"
#include "test_helpers.hpp"

namespace abdyn::test {

inline Eigen::VectorXd vec(const nlohmann::json& j) {
  Eigen::VectorXd x(j.size());
  for (size_t k = 0; k < j.size(); ++k) x[static_cast<Eigen::Index>(k)] = j[k].get<double>();
  return x;
}

/// abdyn's joint names in the peer's order, from the file's dof_names: the floating base (its six
/// "__root__:" coordinates, abdyn's root_joint) first, then one name per joint.
inline JointOrder peerJointOrder(const nlohmann::json& dof_names, bool floating) {
  JointOrder order;
  if (floating) order.push_back("root_joint");
  for (const auto& n : dof_names) {
    const std::string name = n.get<std::string>();
    if (name.rfind("__root__:", 0) != 0) order.push_back(name);
  }
  return order;
}

/// A whole-state conversion of one adapter (abdyn::pinocchio::stateToAbdyn and the like).
using StateConversion = State (*)(const Model&, const State&, const JointOrder&);

/// Worst relative errors over the states compared so far.
struct Worst {
  double fd = 0, id = 0, M = 0, pose = 0;

  /// Checks one state's relative errors of ABA, RNEA and the mass matrix against tol (a failure names
  /// `label`) and keeps the largest of each.
  void check(const std::string& label, double tol, double e_fd, double e_id, double e_M) {
    BOOST_TEST(e_fd <= tol, label << ": ABA " << e_fd);
    BOOST_TEST(e_id <= tol, label << ": RNEA " << e_id);
    BOOST_TEST(e_M <= tol, label << ": CRBA " << e_M);
    fd = std::max(fd, e_fd);
    id = std::max(id, e_id);
    M = std::max(M, e_M);
  }
};

/// Compares abdyn with one file of tests/reference/bundled/ (written by tools/reference/): ABA, RNEA and
/// the full mass matrix in the peer's layout, converted only through `to` and `from`, and the world
/// pose of every link named in the file against abdyn's frame of that name. A pose's error is the
/// relative error of the 3x4 matrix [R p], whose norm is at least sqrt(3), so it is never 0/0.
inline void compareBundled(const nlohmann::json& ref, const Model& model, const DynamicsOptions& terms,
                           StateConversion to, StateConversion from, double tol, Worst& worst) {
  const std::string label = ref["model"].get<std::string>() + " (" + ref["base"].get<std::string>() + ")";
  const JointOrder order = peerJointOrder(ref["dof_names"], ref["base"] == "floating");
  Data data(model);
  const int nv = model.nv();
  for (const nlohmann::json& s : ref["states"]) {
    const Eigen::VectorXd q = vec(s["q"]);
    State st = to(model, {q, vec(s["v"]), {}, vec(s["tau"])}, order);
    st.qdd = forwardDynamics(model, data, st.q, st.v, st.tau, terms);
    const double e_fd = relErr(from(model, st, order).qdd, vec(s["fd_qdd"]));

    st = to(model, {q, vec(s["v"]), vec(s["acc"]), {}}, order);
    st.tau = inverseDynamics(model, data, st.q, st.v, st.qdd, terms);
    st.qdd.resize(0);
    const double e_id = relErr(from(model, st, order).tau, vec(s["id_tau"]));

    // Column k of the peer's M is M times its unit velocity e_k, as a generalized force in its layout.
    const Eigen::MatrixXd M = massMatrix(model, data, st.q, terms);
    Eigen::MatrixXd M_peer(nv, nv), M_ref(nv, nv);
    for (int k = 0; k < nv; ++k) {
      State e = to(model, {q, Eigen::VectorXd::Unit(nv, k), {}, {}}, order);
      e.tau = M * e.v;
      M_peer.col(k) = from(model, e, order).tau;
      M_ref.row(k) = vec(s["M"][static_cast<size_t>(k)]).transpose();
    }
    const double e_M = relErr(M_peer, M_ref);

    forwardKinematics(model, data, st.q);
    double e_pose = 0;
    std::string worst_link;
    for (const auto& [link, pose] : s["link_poses"].items()) {
      const Eigen::Isometry3d T = framePose(model, data, model.frameId(link));
      Eigen::Matrix<double, 3, 4> P, P_ref;
      P << T.linear(), T.translation();
      for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) P_ref(r, c) = pose["R"][static_cast<size_t>(3 * r + c)].get<double>();
        P_ref(r, 3) = pose["p"][static_cast<size_t>(r)].get<double>();
      }
      const double e = relErr(P, P_ref);
      if (e >= e_pose) {
        e_pose = e;
        worst_link = link;
      }
    }
    BOOST_TEST(s["link_poses"].size() == ref["links"].size());
    worst.check(label, tol, e_fd, e_id, e_M);
    BOOST_TEST(e_pose <= tol, label << ": pose of " << worst_link << " " << e_pose);
    worst.pose = std::max(worst.pose, e_pose);
  }
}

/// How many reference files forEachReference read, and how many of them were of a floating base.
struct ReferenceFiles {
  int files = 0;           ///< every file of the folder
  int floating_files = 0;  ///< those whose "base" is "floating"
};

/// Calls check(ref, model, name) for every file of the folder `references` (below the source tree):
/// `ref` is its JSON, `model` the URDF it names in `models` (below the source tree) loaded with `options`
/// and the base the file states, after checking that its nv is the file's; `name` is the file name.
template <class Check>
ReferenceFiles forEachReference(const std::string& references, const std::string& models, const Check& check,
                                UrdfOptions options = {}) {
  const std::string root = ABDYN_SOURCE_DIR;
  ReferenceFiles count;
  for (const auto& entry : std::filesystem::directory_iterator(root + "/" + references)) {
    std::ifstream in(entry.path());
    const nlohmann::json ref = nlohmann::json::parse(in);
    options.floating_base = ref["base"] == "floating";
    const Model model = loadUrdf(root + "/" + models + "/" + ref["model"].get<std::string>() + ".urdf", options);
    BOOST_REQUIRE(model.nv() == ref["nv"].get<int>());
    check(ref, model, entry.path().filename().string());
    ++count.files;
    count.floating_files += options.floating_base;
  }
  return count;
}

}  // namespace abdyn::test
