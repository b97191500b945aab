#include "internal/checks.hpp"

#include <string>

#include "abdyn/logging.hpp"

namespace abdyn::internal {

void throwForeignData(const Model& model, const Data& data, const char* function) {
  throw InvalidArgument(std::string(function) + ": argument 'data' was built for another model (" +
                        std::to_string(data.X_up.size()) + " bodies, nv = " + std::to_string(data.qdd.size()) +
                        ", not model '" + model.name() + "' with " + std::to_string(model.nbodies()) +
                        " bodies, nv = " + std::to_string(model.nv()) + "): build one with abdyn::Data data(model)");
}

void checkIntegratorStep(const Model& model, const Data& data, Eigen::Index workspace_nv, const Eigen::VectorXd& q,
                         const Eigen::VectorXd& v, const char* function) {
  checkData(model, data, function);
  checkDynamics(model, function);
  if (workspace_nv != model.nv()) {
    throw InvalidArgument(std::string(function) + ": the integrator was built for another model (nv = " +
                          std::to_string(workspace_nv) + ", not model '" + model.name() + "' with nv = " +
                          std::to_string(model.nv()) + ")");
  }
  checkConfiguration(model, q, function);
  checkVector(v, model.nv(), function, "v");
}

void checkForwardDynamics(const Model& model, const Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                          const Eigen::VectorXd& tau, const std::vector<Force>* f_ext, const DynamicsOptions& options,
                          const char* function) {
  checkData(model, data, function);
  checkDynamics(model, function);
  checkConfiguration(model, q, function);
  checkDynamicsOptions(options, function);
  checkVector(v, model.nv(), function, "v");
  checkVector(tau, model.nv(), function, "tau");
  if (f_ext) checkForces(model, *f_ext, function);
}

void warnUnenforcedMimics(const Model& model, const char* integrator) {
  if (model.mimics().empty()) return;
  std::string names;
  for (const MimicCoupling& m : model.mimics()) {
    names += (names.empty() ? "'" : ", '") + model.joint(m.follower).name + "' = " + std::to_string(m.multiplier) +
             " '" + model.joint(m.leader).name + "' + " + std::to_string(m.offset);
  }
  logger()->warn("{}: model '{}' declares {} mimic coupling(s) ({}), which this unconstrained integrator does NOT "
                 "enforce: the coupled joints move freely. Use abdyn::Simulator (its mimic rows), or "
                 "forwardDynamicsConstrained with ConstraintSet::fromMimics(model), to keep them coupled",
                 integrator, model.name(), model.mimics().size(), names);
}

void throwNoDynamics(const Model& model, const char* function) {
  std::string bodies;
  const std::vector<int>& massless = model.masslessBodies();
  for (std::size_t k = 0; k < massless.size() && k < 8; ++k) bodies += (k ? ", '" : "'") + model.bodyName(massless[k]) + "'";
  if (massless.size() > 8) bodies += " and " + std::to_string(massless.size() - 8) + " more";
  throw Error(std::string(function) + ": model '" + model.name() + "' is a kinematic description without dynamics: " +
              "its mass matrix is singular" + (bodies.empty() ? std::string() : " because bodies " + bodies +
              " have no mass or inertia") + ". Give every moving body a mass and inertia: UrdfOptions::bound_mass "
              "and bound_inertia (abdyn --bound-mass M --bound-inertia I) when loading a URDF file");
}

void throwStaleWorldColumns(const Data& data, const char* function) {
  throw InvalidArgument(std::string(function) + ": data.S_world is " +
                        (data.S_world_stamp == ~std::uint64_t(0) ? "unfilled" : "stale (from an earlier X_body_world)") +
                        ": call abdyn::jointJacobians(model, data) after forwardKinematics");
}

}  // namespace abdyn::internal
