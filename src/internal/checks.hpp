#pragma once
// Argument checks shared by the algorithms (see checked_mode.hpp for the policy).

#include <cmath>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "abdyn/algorithms/dynamics_options.hpp"
#include "abdyn/checked_mode.hpp"
#include "abdyn/error.hpp"
#include "abdyn/model/data.hpp"
#include "abdyn/model/model.hpp"

namespace abdyn::internal {

[[noreturn]] void throwSizeError(const char* function, const char* argument, Eigen::Index actual, Eigen::Index expected);
[[noreturn]] void throwNonFinite(const char* function, const char* argument, Eigen::Index index);
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

[[noreturn]] void throwForeignData(const Model& model, const Data& data, const char* function);

/// Checks that `data` was built for `model` (O(1): the model's structure key), so that no algorithm reads or
/// writes past a Data sized for another model. Every public function that takes (model, data) calls it.
inline void checkData(const Model& model, const Data& data, const char* function) {
  if (data.model_key != model.structureKey()) throwForeignData(model, data, function);
}

[[noreturn]] void throwNoDynamics(const Model& model, const char* function);

/// The door of every call that needs the model's inertias (Model::hasDynamics): a kinematic description
/// is refused with an abdyn::Error naming its massless bodies and the loader options that give them mass,
/// never computed into NaN or a singular solve.
inline void checkDynamics(const Model& model, const char* function) {
  if (!model.hasDynamics()) throwNoDynamics(model, function);
}

[[noreturn]] void throwStaleWorldColumns(const Data& data, const char* function);
[[noreturn]] void throwBodyError(const Model& model, int body, const char* function, const char* argument);

/// Checks that data.S_world belongs to the current data.X_body_world (jointJacobians after the last
/// forwardKinematics): the row builders read it, and a stale one would give a wrong J without a sign.
inline void checkWorldColumns(const Data& data, const char* function) {
  if (data.S_world_stamp != data.X_body_world_stamp) throwStaleWorldColumns(data, function);
}

/// Checks that `body` is a body of the model.
inline void checkBody(const Model& model, int body, const char* function, const char* argument) {
  if (body < 0 || body >= model.nbodies()) throwBodyError(model, body, function, argument);
}

/// The checks at the door of an integrator's step: data and the integrator's workspace (whose velocity
/// size is workspace_nv) belong to the model, the model has dynamics, and q and v have its sizes.
void checkIntegratorStep(const Model& model, const Data& data, Eigen::Index workspace_nv, const Eigen::VectorXd& q,
                         const Eigen::VectorXd& v, const char* function);

/// Mimic couplings are constraints that an unconstrained integrator does not enforce: it logs a warning
/// once, when it is built for a model that declares some, naming them and what enforces them instead.
void warnUnenforcedMimics(const Model& model, const char* integrator);

/// Checks a time step: positive and finite.
inline void checkTimeStep(double h, const char* function) {
  if (!(h > 0.0) || !std::isfinite(h)) {
    throw InvalidArgument(std::string(function) + ": step 'h' must be positive and finite, got " + std::to_string(h));
  }
}

inline void checkDynamicsOptions(const DynamicsOptions& options, const char* function) {
  const double h = options.implicit_damping_step;
  if (!(h >= 0.0) || !std::isfinite(h)) {
    throw InvalidArgument(std::string(function) + ": options 'implicit_damping_step' must be >= 0 and finite, got " +
                          std::to_string(h));
  }
}

}  // namespace abdyn::internal
