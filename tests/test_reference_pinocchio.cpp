#define BOOST_TEST_MODULE reference_pinocchio
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "abdyn/abdyn.hpp"
#include "test_helpers.hpp"

// abdyn against Pinocchio 3.7.0's outputs on the same URDFs (tests/reference/README.md), after
// converting Pinocchio's layout: floating base q = [x y z qx qy qz qw] -> [x y z qw qx qy qz];
// root velocity, acceleration and force [linear; angular] -> [angular; linear] (both body frame);
// other coordinates matched by joint name. Pinocchio includes armature and ignores URDF damping.

using namespace abdyn;
using nlohmann::json;

namespace {

Eigen::VectorXd vec(const json& j) {
  Eigen::VectorXd x(j.size());
  for (size_t k = 0; k < j.size(); ++k) x[static_cast<Eigen::Index>(k)] = j[k].get<double>();
  return x;
}

// perm[k]: abdyn's velocity index of Pinocchio's coordinate k.
struct Layout {
  std::vector<int> perm;
  bool floating = false;
};

Layout layout(const Model& model, const json& names) {
  Layout l;
  for (const auto& n : names) {
    const std::string name = n.get<std::string>();
    if (name.rfind("__root__:", 0) == 0) {
      l.floating = true;
      static const std::vector<std::string> root = {"vx", "vy", "vz", "wx", "wy", "wz"};
      const size_t c = std::find(root.begin(), root.end(), name.substr(9)) - root.begin();
      BOOST_REQUIRE(c < root.size());
      const int base = model.joint("root_joint").idx_v;
      l.perm.push_back(base + static_cast<int>(c < 3 ? c + 3 : c - 3));  // [lin; ang] -> [ang; lin]
    } else {
      const Joint& j = model.joint(name);
      BOOST_REQUIRE(j.nv == 1);
      l.perm.push_back(j.idx_v);
    }
  }
  return l;
}

Eigen::VectorXd toAbdyn(const Layout& l, const Eigen::VectorXd& x) {
  Eigen::VectorXd y(x.size());
  for (size_t k = 0; k < l.perm.size(); ++k) y[l.perm[k]] = x[static_cast<Eigen::Index>(k)];
  return y;
}

// Pinocchio's q: the free flyer's 7 numbers first, then one per revolute joint in dof_names order.
Eigen::VectorXd configuration(const Model& model, const Layout& l, const json& names, const Eigen::VectorXd& qp) {
  Eigen::VectorXd q(model.nq());
  Eigen::Index c = 0;
  if (l.floating) {
    const int b = model.joint("root_joint").idx_q;
    q.segment<3>(b) = qp.head<3>();
    q[b + 3] = qp[6];
    q.segment<3>(b + 4) = qp.segment<3>(3);
    c = 7;
  }
  for (const auto& n : names) {
    const std::string name = n.get<std::string>();
    if (name.rfind("__root__:", 0) == 0) continue;
    q[model.joint(name).idx_q] = qp[c++];
  }
  BOOST_REQUIRE(c == qp.size());
  return q;
}

}  // namespace

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
    const Layout l = layout(model, ref["dof_names"]);
    Data data(model);
    for (const json& s : ref["states"]) {
      const Eigen::VectorXd q = configuration(model, l, ref["dof_names"], vec(s["q"]));
      const Eigen::VectorXd v = toAbdyn(l, vec(s["v"]));
      const Eigen::VectorXd tau = toAbdyn(l, vec(s["tau"]));
      const Eigen::VectorXd acc = toAbdyn(l, vec(s["acc"]));
      const double e_fd = test::relErr(forwardDynamics(model, data, q, v, tau, pinocchio_terms), toAbdyn(l, vec(s["fd_qdd"])));
      const double e_id = test::relErr(inverseDynamics(model, data, q, v, acc, pinocchio_terms), toAbdyn(l, vec(s["id_tau"])));
      const Eigen::MatrixXd& M = massMatrix(model, data, q, pinocchio_terms);
      Eigen::MatrixXd Mref(model.nv(), model.nv());
      for (size_t r = 0; r < l.perm.size(); ++r) {
        const Eigen::VectorXd row = vec(s["M"][r]);
        for (size_t c = 0; c < l.perm.size(); ++c) Mref(l.perm[r], l.perm[c]) = row[static_cast<Eigen::Index>(c)];
      }
      const double e_M = test::relErr(M, Mref);
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
