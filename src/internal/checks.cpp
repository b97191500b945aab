#include "internal/checks.hpp"

#include <atomic>
#include <cmath>

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

void throwStaleWorldColumns(const Data& data, const char* function) {
  throw InvalidArgument(std::string(function) + ": data.S_world is " +
                        (data.S_world_stamp == ~std::uint64_t(0) ? "unfilled" : "stale (from an earlier X_world)") +
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
    const int start = j.idx_q + (j.type == JointType::Floating ? 3 : 0);
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
