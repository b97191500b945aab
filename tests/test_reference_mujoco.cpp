#define BOOST_TEST_MODULE reference_mujoco
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <mujoco/mujoco.h>
#include <tinyxml2.h>

#include "abdyn/abdyn.hpp"
#include "test_helpers.hpp"

// abdyn against MuJoCo (Debian's libmujoco-dev, 2.2.2) on every fixed-base bundled URDF: MuJoCo's
// unconstrained acceleration qacc_smooth against abdyn's forward dynamics, with joint forces and an
// external force on every body, joints matched by name through abdyn::mujoco::stateToAbdyn /
// stateFromAbdyn and forces converted by abdyn::mujoco::xfrcAppliedFromAbdyn. MuJoCo is a coarse witness (its URDF import
// turns each inertia into principal moments and axes, and massless links get lower bounds, below):
// 1e-6 relative. Built only when CMake finds MuJoCo (tests/CMakeLists.txt).

using namespace abdyn;

namespace {

// The URDF without <visual> and <collision> (MuJoCo would try to load their mesh files), written to
// the working directory.
std::string strippedCopy(const std::string& path, bool balance_inertia = false) {
  tinyxml2::XMLDocument doc;
  BOOST_REQUIRE(doc.LoadFile(path.c_str()) == tinyxml2::XML_SUCCESS);
  tinyxml2::XMLElement* robot = doc.FirstChildElement("robot");
  for (tinyxml2::XMLElement* link = robot->FirstChildElement("link"); link; link = link->NextSiblingElement("link")) {
    for (const char* tag : {"visual", "collision"}) {
      while (tinyxml2::XMLElement* e = link->FirstChildElement(tag)) link->DeleteChild(e);
    }
  }
  // MuJoCo 2.2.2 refuses moving bodies without mass (the humanoid's intermediate links of its two-axis
  // joints). Its compiler's lower bounds give them 1e-9 kg and 1e-12 kg m^2, which moves the
  // accelerations by about 1e-9 relative, far below this test's tolerance; heavier bodies are untouched.
  tinyxml2::XMLElement* ext = doc.NewElement("mujoco");
  tinyxml2::XMLElement* compiler = doc.NewElement("compiler");
  compiler->SetAttribute("boundmass", "1e-9");
  compiler->SetAttribute("boundinertia", "1e-12");
  if (balance_inertia) compiler->SetAttribute("balanceinertia", "true");
  ext->InsertEndChild(compiler);
  robot->InsertFirstChild(ext);
  const std::string out = "mujoco_" + std::filesystem::path(path).filename().string();
  BOOST_REQUIRE(doc.SaveFile(out.c_str()) == tinyxml2::XML_SUCCESS);
  return out;
}

// 5 random states (q, v, tau and an external force on every body) of the URDF at `path`: abdyn's
// forward dynamics against MuJoCo's qacc_smooth; returns the worst relative error.
double compareWithMujoco(const std::string& path, const UrdfOptions& options, std::mt19937& rng) {
  auto uniform = [&rng](int n) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Eigen::VectorXd x(n);
    for (int k = 0; k < n; ++k) x(k) = u(rng);
    return x;
  };
  const std::filesystem::path file(path);
  const Model model = loadUrdf(path, options);
  char error[1000] = "";
  mjModel* m = mj_loadXML(strippedCopy(path, options.balance_inertia).c_str(), nullptr, error, sizeof(error));
  BOOST_REQUIRE_MESSAGE(m != nullptr, file.filename() << ": MuJoCo: " << error);
  mjData* d = mj_makeData(m);
  BOOST_REQUIRE(m->nv == model.nv());
  JointOrder order;
  for (int j = 0; j < m->njnt; ++j) order.push_back(mj_id2name(m, mjOBJ_JOINT, j));
  Data data(model);
  double worst_here = 0.0;
  for (int trial = 0; trial < 5; ++trial) {
    State s;
    s.q = randomConfiguration(model, rng);
    s.v = uniform(model.nv());
    s.tau = uniform(model.nv());
    const State o = mujoco::stateFromAbdyn(model, s, order);
    Eigen::Map<Eigen::VectorXd>(d->qpos, m->nq) = o.q;
    Eigen::Map<Eigen::VectorXd>(d->qvel, m->nv) = o.v;
    Eigen::Map<Eigen::VectorXd>(d->qfrc_applied, m->nv) = o.tau;
    mj_forward(m, d);  // for MuJoCo's centres of mass xipos
    // A random external force on every moving body, as abdyn's f_ext and as MuJoCo's xfrc_applied.
    forwardKinematics(model, data, s.q);
    std::vector<Force> f_ext(model.nbodies());
    for (int i = 1; i < model.nbodies(); ++i) {
      f_ext[i] = Force(uniform(6));
      const int b = mj_name2id(m, mjOBJ_BODY, model.bodyName(i).c_str());
      BOOST_REQUIRE(b >= 0);
      const Vector3 com_body = data.X_body_world[i].applyToPoint(Eigen::Map<const Vector3>(d->xipos + 3 * b));
      Eigen::Map<Vector6>(d->xfrc_applied + 6 * b) = mujoco::xfrcAppliedFromAbdyn(data.X_body_world[i], com_body, f_ext[i]);
    }
    mj_forward(m, d);
    State back = o;
    back.qdd = Eigen::Map<const Eigen::VectorXd>(d->qacc_smooth, m->nv);
    const Eigen::VectorXd qdd_mujoco = mujoco::stateToAbdyn(model, back, order).qdd;
    const double e = test::relErr(forwardDynamics(model, data, s.q, s.v, s.tau, f_ext), qdd_mujoco);
    BOOST_TEST(e <= 1e-6, file.filename() << ": " << e);
    worst_here = std::max(worst_here, e);
  }
  mj_deleteData(d);
  mj_deleteModel(m);
  return worst_here;
}

}  // namespace

BOOST_AUTO_TEST_CASE(forward_dynamics_agrees_with_mujoco) {
  const std::string root = ABDYN_SOURCE_DIR;
  std::mt19937 rng(17);
  int files = 0;
  double worst = 0.0;
  for (const auto& entry : std::filesystem::directory_iterator(root + "/models")) {
    if (entry.path().extension() != ".urdf") continue;
    const double worst_here = compareWithMujoco(entry.path().string(), UrdfOptions(), rng);
    BOOST_TEST_MESSAGE(entry.path().filename() << ": worst relative error " << worst_here);
    worst = std::max(worst, worst_here);
    ++files;
  }
  BOOST_TEST(files >= 6);  // every URDF in models/ was compared (a refused one fails above)
  BOOST_TEST_MESSAGE(files << " models; worst relative error against MuJoCo " << mj_versionString() << ": " << worst);
}

// The loader's pattern files (tests/models/patterns/) that MuJoCo also reads: links welded into a body
// as a point mass and a turned thin rod, a triangle violation rebalanced by both (balance_inertia here,
// balanceinertia there, which refuses it otherwise: the same isotropic inertia), an arm on a "world"
// root, negative limits, and the file with several patterns at once (rebalanced too). Same states and
// tolerance as above.
BOOST_AUTO_TEST_CASE(loader_patterns_agree_with_mujoco) {
  std::mt19937 rng(1515);
  UrdfOptions balanced;
  balanced.balance_inertia = true;
  const std::vector<std::pair<std::string, UrdfOptions>> cases = {
      {"welded_point_mass", UrdfOptions()}, {"triangle_violation", balanced}, {"world_root", UrdfOptions()},
      {"several_patterns", balanced}, {"negative_limits", UrdfOptions()}};
  for (const auto& [name, options] : cases) {
    const double worst = compareWithMujoco(std::string(ABDYN_SOURCE_DIR) + "/tests/models/patterns/" + name + ".urdf",
                                           options, rng);
    BOOST_TEST_MESSAGE(name << ": worst relative error " << worst);
  }
}
