#pragma once
// One check that two models are the same, field by field: sizes, names, tree, joints, placements,
// inertias, limits, damping, mimics, frames and geometry. With tol == 0 every number must be equal bit
// for bit (==); otherwise numbers agree to tol relative to max(1, |value|), as after a rounding.
// Shared by the tests of the urdfdom door, reduced models and URDF export, with the list of the
// repository's URDF files they run on.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "abdyn/model/model.hpp"

namespace abdyn::test {

namespace detail {
// Infinite limits are equal when they are the same infinity.
template <class A, class B>
bool close(const A& a, const B& b, double tol) {
  if (tol == 0.0) return a == b;
  return ((a.array() == b.array()) || ((a - b).array().abs() <= tol * (1.0 + b.array().abs()))).all();
}
inline bool close(double a, double b, double tol) {
  return tol == 0.0 ? a == b : std::abs(a - b) <= tol * (1.0 + std::abs(b));
}
}  // namespace detail

/// Checks that `a` and `b` describe the same model (see above); `what` names the comparison in messages.
/// Without `geometry`, visuals and collisions are not compared.
inline void checkSameModel(const Model& a, const Model& b, double tol, const std::string& what, bool geometry = true) {
  using detail::close;
  BOOST_TEST_CONTEXT(what) {
    BOOST_TEST(a.name() == b.name());
    BOOST_TEST_REQUIRE(a.nbodies() == b.nbodies());
    BOOST_TEST_REQUIRE(a.nq() == b.nq());
    BOOST_TEST_REQUIRE(a.nv() == b.nv());
    BOOST_TEST(close(a.gravity().angular(), b.gravity().angular(), tol));
    BOOST_TEST(close(a.gravity().linear(), b.gravity().linear(), tol));
    for (int i = 0; i < a.nbodies(); ++i) {
      BOOST_TEST_CONTEXT("body " << i << " '" << b.bodyName(i) << "'") {
        BOOST_TEST(a.bodyName(i) == b.bodyName(i));
        BOOST_TEST(a.parent(i) == b.parent(i));
        const Joint& ja = a.joint(i);
        const Joint& jb = b.joint(i);
        BOOST_TEST(ja.name == jb.name);
        BOOST_TEST((ja.type == jb.type));
        BOOST_TEST(ja.idx_q == jb.idx_q);
        BOOST_TEST(ja.idx_v == jb.idx_v);
        BOOST_TEST(ja.continuous == jb.continuous);
        BOOST_TEST(close(ja.axis, jb.axis, tol));
        BOOST_TEST(close(ja.axis2, jb.axis2, tol));
        BOOST_TEST(close(ja.pitch, jb.pitch, tol));
        BOOST_TEST(close(a.Xtree(i).E(), b.Xtree(i).E(), tol));
        BOOST_TEST(close(a.Xtree(i).r(), b.Xtree(i).r(), tol));
        BOOST_TEST(close(a.inertiaMatrix(i), b.inertiaMatrix(i), tol));
      }
    }
    BOOST_TEST(close(a.lowerPositionLimit(), b.lowerPositionLimit(), tol));
    BOOST_TEST(close(a.upperPositionLimit(), b.upperPositionLimit(), tol));
    BOOST_TEST(close(a.velocityLimit(), b.velocityLimit(), tol));
    BOOST_TEST(close(a.effortLimit(), b.effortLimit(), tol));
    BOOST_TEST(close(a.damping(), b.damping(), tol));
    BOOST_TEST(close(a.friction(), b.friction(), tol));
    BOOST_TEST(close(a.armature(), b.armature(), tol));
    BOOST_TEST_REQUIRE(a.mimics().size() == b.mimics().size());
    for (std::size_t k = 0; k < a.mimics().size(); ++k) {
      BOOST_TEST(a.mimics()[k].follower == b.mimics()[k].follower);
      BOOST_TEST(a.mimics()[k].leader == b.mimics()[k].leader);
      BOOST_TEST(close(a.mimics()[k].multiplier, b.mimics()[k].multiplier, tol));
      BOOST_TEST(close(a.mimics()[k].offset, b.mimics()[k].offset, tol));
    }
    BOOST_TEST_REQUIRE(a.nframes() == b.nframes());
    for (int f = 0; f < a.nframes(); ++f) {
      const Frame& fa = a.frame(f);
      const Frame& fb = b.frame(f);
      BOOST_TEST_CONTEXT("frame '" << fb.name << "'") {
        BOOST_TEST(fa.name == fb.name);
        BOOST_TEST((fa.type == fb.type));
        BOOST_TEST(fa.body == fb.body);
        BOOST_TEST(close(fa.X_frame_body.E(), fb.X_frame_body.E(), tol));
        BOOST_TEST(close(fa.X_frame_body.r(), fb.X_frame_body.r(), tol));
      }
    }
    if (!geometry) return;
    BOOST_TEST_REQUIRE(a.geometries().size() == b.geometries().size());
    for (std::size_t k = 0; k < a.geometries().size(); ++k) {
      const Geometry& ga = a.geometries()[k];
      const Geometry& gb = b.geometries()[k];
      BOOST_TEST_CONTEXT("geometry '" << gb.name << "'") {
        BOOST_TEST(ga.name == gb.name);
        BOOST_TEST(ga.link == gb.link);
        BOOST_TEST((ga.role == gb.role));
        BOOST_TEST((ga.shape == gb.shape));
        BOOST_TEST(ga.body == gb.body);
        BOOST_TEST(close(ga.X_geometry_body.E(), gb.X_geometry_body.E(), tol));
        BOOST_TEST(close(ga.X_geometry_body.r(), gb.X_geometry_body.r(), tol));
        BOOST_TEST(close(ga.size, gb.size, tol));
        BOOST_TEST(ga.mesh_filename == gb.mesh_filename);
        BOOST_TEST(close(ga.mesh_scale, gb.mesh_scale, tol));
      }
    }
  }
}

/// The *.urdf files under the repository's folders `dirs` (relative to ABDYN_SOURCE_DIR), sorted.
inline std::vector<std::string> urdfFilesUnder(const std::vector<std::string>& dirs) {
  std::vector<std::string> files;
  for (const std::string& dir : dirs) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(ABDYN_SOURCE_DIR) + "/" + dir)) {
      if (entry.is_regular_file() && entry.path().extension() == ".urdf") files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace abdyn::test
