#pragma once
// Argument checks that need only the Model (see checked_mode.hpp for the policy): the model layer's own
// doors use them, and internal/checks.hpp adds those that need a Data for the layers above.

#include <cmath>
#include <vector>

#include <Eigen/Core>

#include "abdyn/checked_mode.hpp"
#include "abdyn/error.hpp"
#include "abdyn/model/model.hpp"

namespace abdyn::internal {

[[noreturn]] void throwSizeError(const char* function, const char* argument, Eigen::Index actual, Eigen::Index expected);
[[noreturn]] void throwNonFinite(const char* function, const char* argument, Eigen::Index index);
[[noreturn]] void throwBodyError(const Model& model, int body, const char* function, const char* argument);

/// Checks that q's quaternions have unit norm (within 1e-6); throws naming the joint otherwise.
void checkQuaternions(const Model& model, const Eigen::VectorXd& q, const char* function);

/// Size check (always) and, in checked mode, a finiteness check.
template <class Derived>
inline void checkVector(const Eigen::MatrixBase<Derived>& x, Eigen::Index expected, const char* function,
                        const char* argument) {
  if (x.size() != expected) throwSizeError(function, argument, x.size(), expected);
  if (checkedMode()) {
    for (Eigen::Index k = 0; k < x.size(); ++k) {
      if (!std::isfinite(x[k])) throwNonFinite(function, argument, k);
    }
  }
}

/// Checks an external-force vector: one entry per body (and finite entries in checked mode).
void checkForces(const Model& model, const std::vector<Force>& f_ext, const char* function);

/// Checks q: size nq, and in checked mode finite entries and unit quaternions.
inline void checkConfiguration(const Model& model, const Eigen::VectorXd& q, const char* function) {
  checkVector(q, model.nq(), function, "q");
  if (checkedMode() && model.hasQuaternions()) checkQuaternions(model, q, function);
}

/// Checks that `body` is a body of the model.
inline void checkBody(const Model& model, int body, const char* function, const char* argument) {
  if (body < 0 || body >= model.nbodies()) throwBodyError(model, body, function, argument);
}

}  // namespace abdyn::internal
