#pragma once
// Argument checks shared by the layers above the model (see checked_mode.hpp for the policy): those that need
// a Data, a time step or options, beside the Model-only checks of model/argument_checks.hpp.

#include <cmath>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "abdyn/algorithms/dynamics_options.hpp"
#include "abdyn/checked_mode.hpp"
#include "abdyn/error.hpp"
#include "abdyn/model/data.hpp"
#include "abdyn/model/model.hpp"
#include "model/argument_checks.hpp"

namespace abdyn::internal {

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

/// Checks that data.S_world belongs to the current data.X_body_world (jointJacobians after the last
/// forwardKinematics): the row builders read it, and a stale one would give a wrong J without a sign.
inline void checkWorldColumns(const Data& data, const char* function) {
  if (data.S_world_stamp != data.X_body_world_stamp) throwStaleWorldColumns(data, function);
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

/// The door of the forward-dynamics calls (forwardDynamics, forwardDynamicsCrba, with or without f_ext):
/// data belongs to the model, q, v, tau (and f_ext when given) have its sizes, the options are valid.
void checkForwardDynamics(const Model& model, const Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                          const Eigen::VectorXd& tau, const std::vector<Force>* f_ext, const DynamicsOptions& options,
                          const char* function);

}  // namespace abdyn::internal
