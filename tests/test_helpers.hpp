#pragma once
// Shared helpers for abdyn's tests: seeded random inputs and a relative-error check.

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "abdyn/error.hpp"
#include "abdyn/model/model_builder.hpp"
#include "abdyn/spatial/types.hpp"

namespace abdyn::test {

/// Runs `call`, which must throw abdyn::Error whose message starts with `source` + `separator` (a loader
/// names its file, or "<string>", then ": ") and contains every fragment.
inline void checkError(const std::function<void()>& call, const std::string& source,
                       const std::vector<std::string>& fragments, const std::string& separator = ": ") {
  try {
    call();
    BOOST_ERROR("no exception; expected one mentioning '" << fragments.front() << "'");
  } catch (const Error& e) {
    const std::string what = e.what();
    BOOST_TEST_MESSAGE("error message: " << what);
    BOOST_TEST(what.rfind(source + separator, 0) == 0, "message does not start with '" << source << separator << "': " << what);
    for (const std::string& f : fragments) BOOST_TEST(what.find(f) != std::string::npos, "'" << f << "' not in: " << what);
  } catch (const std::exception& e) {
    BOOST_ERROR("expected abdyn::Error, got another exception: " << e.what());
  }
}

/// A path in the temporary directory that names this process: test programs of several build trees may
/// run at once on one machine, and a shared fixed name lets one delete the other's file.
inline std::string temporaryPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / (std::to_string(::getpid()) + "_" + name)).string();
}

/// The path of a file in the source tree's models/ folder (`name` with its extension).
inline std::string modelPath(const std::string& name) { return std::string(ABDYN_SOURCE_DIR) + "/models/" + name; }

/// Relative error |a - b| / max(|b|, 1e-300) in the Frobenius (2-) norm; absolute when b is zero.
template <class A, class B>
double relErr(const A& a, const B& b) {
  const double nb = b.norm();
  const double diff = (a - b).norm();
  return nb > 0.0 ? diff / nb : diff;
}

/// Checks relErr(a, b) <= tol and reports both values on failure.
#define ABDYN_CHECK_REL(a, b, tol)                                                                   \
  do {                                                                                               \
    const double abdyn_rel_err_ = ::abdyn::test::relErr((a), (b));                                   \
    BOOST_TEST(abdyn_rel_err_ <= (tol), "relative error " << abdyn_rel_err_ << " > " << (tol) << " for " \
                                                            << #a << " vs " << #b);                  \
  } while (0)

/// Checks |a - b| <= tol (1 + |b|): relative for large values, absolute near zero (where a relative
/// error of rounding noise means nothing).
#define ABDYN_CHECK_NEAR(a, b, tol)                                                                     \
  do {                                                                                                \
    const double abdyn_err_ = ((a) - (b)).norm(), abdyn_ref_ = (b).norm();                            \
    BOOST_TEST(abdyn_err_ <= (tol) * (1.0 + abdyn_ref_),                                              \
               "error " << abdyn_err_ << " > " << (tol) << " * (1 + " << abdyn_ref_ << ") for " << #a << " vs " << #b); \
  } while (0)

/// n entries uniform in [-scale, scale].
inline Eigen::VectorXd randomVector(int n, std::mt19937& rng, double scale = 1.0) {
  std::uniform_real_distribution<double> u(-scale, scale);
  Eigen::VectorXd x(n);
  for (int k = 0; k < n; ++k) x[k] = u(rng);
  return x;
}

/// A physical pendulum: revolute about y, a 1 kg ball of radius 5 cm, 1 m below the axis, with a joint
/// damper of `damping` N m s / rad.
inline Model pendulum(double damping = 0.0) {
  ModelBuilder b("pendulum");
  JointSpec hinge;
  hinge.name = "hinge";
  hinge.axis = Vector3::UnitY();
  hinge.damping = damping;
  const double Ic = 0.4 * 1.0 * 0.05 * 0.05;
  b.addBody(0, hinge, Plx(), RigidBodyInertia(1.0, Vector3(0, 0, -1.0), Vector3(Ic, Ic, Ic).asDiagonal()), "bob");
  return b.build();
}

inline Vector3 randomVector3(std::mt19937& rng, double scale = 1.0) {
  std::uniform_real_distribution<double> u(-scale, scale);
  return Vector3(u(rng), u(rng), u(rng));
}

inline Vector6 randomVector6(std::mt19937& rng, double scale = 1.0) {
  Vector6 v;
  v << randomVector3(rng, scale), randomVector3(rng, scale);
  return v;
}

/// A uniformly distributed rotation matrix (from a normalised Gaussian quaternion, written out here
/// so the tests do not depend on the library's quaternion code).
inline Matrix3 randomRotation(std::mt19937& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  double w = n(rng), x = n(rng), y = n(rng), z = n(rng);
  const double s = 1.0 / std::sqrt(w * w + x * x + y * y + z * z);
  w *= s, x *= s, y *= s, z *= s;
  Matrix3 R;
  R << 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
       2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
       2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y);
  return R;
}

/// A valid rotational inertia about the centre of mass: random principal moments obeying the
/// triangle inequality (each in [0.1, 1] of the largest, the largest scaled by `scale`), random axes.
inline Matrix3 randomInertiaAboutCom(std::mt19937& rng, double scale = 1.0) {
  std::uniform_real_distribution<double> u(0.2, 1.0);
  // Moments from a random box-like mass distribution a, b, c >= 0: I = (b + c, a + c, a + b).
  const double a = u(rng), b = u(rng), c = u(rng);
  const Vector3 moments(b + c, a + c, a + b);
  const Matrix3 R = randomRotation(rng);
  return scale * R * moments.asDiagonal() * R.transpose();
}

}  // namespace abdyn::test
