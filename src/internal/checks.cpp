#include "internal/checks.hpp"

#include <atomic>
#include <cmath>

#include "abdyn/logging.hpp"

namespace abdyn {
namespace {
#ifdef NDEBUG
std::atomic<bool> g_checked{false};
#else
std::atomic<bool> g_checked{true};
#endif
}  // namespace

bool checkedMode() { return g_checked.load(std::memory_order_relaxed); }
void setCheckedMode(bool on) { g_checked.store(on, std::memory_order_relaxed); }

namespace internal {

void throwSizeError(const char* function, const char* argument, Eigen::Index actual, Eigen::Index expected) {
  throw InvalidArgument(std::string(function) + ": argument '" + argument + "' has size " + std::to_string(actual) +
                        ", expected " + std::to_string(expected));
}

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

void throwBodyError(const Model& model, int body, const char* function, const char* argument) {
  throw InvalidArgument(std::string(function) + ": " + argument + " " + std::to_string(body) + " is not in model '" +
                        model.name() + "'");
}

void throwNonFinite(const char* function, const char* argument, Eigen::Index index) {
  throw InvalidArgument(std::string(function) + ": argument '" + argument + "' has a non-finite entry at index " +
                        std::to_string(index));
}

void checkForces(const Model& model, const std::vector<Force>& f_ext, const char* function) {
  if (static_cast<int>(f_ext.size()) != model.nbodies()) {
    throwSizeError(function, "f_ext", static_cast<Eigen::Index>(f_ext.size()), model.nbodies());
  }
  if (!checkedMode()) return;
  for (size_t i = 0; i < f_ext.size(); ++i) {
    if (!f_ext[i].vector().allFinite()) throwNonFinite(function, "f_ext", static_cast<Eigen::Index>(i));
  }
}

void checkQuaternions(const Model& model, const Eigen::VectorXd& q, const char* function) {
  for (int i = 1; i < model.nbodies(); ++i) {
    const Joint& j = model.joint(i);
    if (!j.hasQuaternion()) continue;
    const int start = j.quaternionIndex();
    const double norm = q.segment<4>(start).norm();
    if (std::abs(norm - 1.0) > 1e-6) {
      throw InvalidArgument(std::string(function) + ": argument 'q': the quaternion of joint '" + j.name +
                            "' (q[" + std::to_string(start) + ".." + std::to_string(start + 3) + "]) has norm " +
                            std::to_string(norm) + ", expected 1 (call abdyn::normalize)");
    }
  }
}

}  // namespace internal
}  // namespace abdyn
