#define BOOST_TEST_MODULE reference_mujoco_mjcf
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "mujoco_mjcf_compare.hpp"

// abdyn's MJCF loader against MuJoCo (Debian's libmujoco-dev, 2.2.2) on tests/models/mjcf/, one small
// file of our own per feature the loader claims (the file's first comment says which), and on the
// bundled ant and humanoid (models/*.xml). At 20 random
// states each: the mass matrix (mj_fullM) to 1e-12 relative, the bias forces (qfrc_bias) to 1e-12 and the
// smooth acceleration (qacc_smooth with random qfrc_applied, MuJoCo's passive forces included) to 1e-9,
// the tolerances docs/loading-robots.md states: the two compute the same quantities from the same numbers, so they
// differ by rounding (about 1e-15 relative on M, amplified by cond(M) in the acceleration). Built only
// when CMake finds MuJoCo (tests/CMakeLists.txt).

namespace {

// The feature files and the bundled MJCF models (models/ant.xml, models/humanoid.xml).
std::vector<std::string> modelFiles() {
  std::vector<std::string> files;
  for (const char* folder : {"/tests/models/mjcf", "/models"}) {
    for (const auto& e : std::filesystem::directory_iterator(std::string(ABDYN_SOURCE_DIR) + folder)) {
      if (e.path().extension() == ".xml") files.push_back(e.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

// The files with bodies whose inertia MuJoCo 2.2.2 diagonalises (fullinertia, several geoms): its Jacobi
// iteration stops at 1e-12 absolute off-diagonal entries, which leaves the principal axes off by up to
// about 1e-12 / (the gap between two moments), here up to 1e-9 relative in M. On these files the
// comparison is made twice: with MuJoCo's model as compiled (M and bias within 1e-8, qacc within 1e-7,
// cond(M) amplifying it) and with
// MuJoCo's principal axes replaced by the exact ones of the same tensors (then within the tolerances of
// every other file), which shows that the difference is the diagonalisation and nothing else.
// The mesh files are among them: a mesh's inertia is diagonalised too, and by default MuJoCo weighs a mesh
// geom by the volume of the box with its approximate principal moments, so its body mass is replaced too.
const std::vector<std::string> kDiagonalised = {"frames.xml",     "inertia_explicit.xml", "inertia_geoms.xml",
                                                  "mesh_data.xml",  "mesh_exact.xml",       "mesh_inertia.xml"};

void checkAgreement(const std::string& name, const abdyn::test::MujocoComparison& c, double tol_M, double tol_qacc) {
  BOOST_TEST_REQUIRE((c.loaded_abdyn && c.loaded_mujoco && c.error.empty()), name << ": " << c.error);
  BOOST_TEST(c.mass_matrix <= tol_M, name << ": mass matrix " << c.mass_matrix);
  BOOST_TEST(c.bias <= tol_M, name << ": bias " << c.bias);
  BOOST_TEST(c.acceleration <= tol_qacc, name << ": qacc_smooth " << c.acceleration);
}

BOOST_AUTO_TEST_CASE(every_feature_file_agrees_with_mujoco) {
  const std::vector<std::string> files = modelFiles();
  BOOST_TEST(files.size() >= 22u);
  for (const std::string& path : files) {
    const std::string name = std::filesystem::path(path).filename().string();
    std::mt19937 rng(30);
    const abdyn::test::MujocoComparison c = abdyn::test::compareMjcfWithMujoco(path, 20, rng);
    BOOST_TEST_MESSAGE(name << ": M " << c.mass_matrix << ", bias " << c.bias << ", qacc " << c.acceleration);
    const bool diagonalised = std::find(kDiagonalised.begin(), kDiagonalised.end(), name) != kDiagonalised.end();
    if (!diagonalised) {
      checkAgreement(name, c, 1e-12, 1e-9);
      continue;
    }
    checkAgreement(name, c, 1e-8, 1e-7);
    rng.seed(30);
    const abdyn::test::MujocoComparison exact = abdyn::test::compareMjcfWithMujoco(path, 20, rng, true);
    BOOST_TEST_MESSAGE(name << " with exact principal axes (tensors moved by " << exact.principal_axes << "): M "
                            << exact.mass_matrix << ", bias " << exact.bias << ", qacc " << exact.acceleration);
    checkAgreement(name, exact, 1e-12, 1e-9);
  }
}
