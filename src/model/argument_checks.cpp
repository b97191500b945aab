#include "model/argument_checks.hpp"

#include <atomic>
#include <string>

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

void throwNonFinite(const char* function, const char* argument, Eigen::Index index) {
  throw InvalidArgument(std::string(function) + ": argument '" + argument + "' has a non-finite entry at index " +
                        std::to_string(index));
}

void throwBodyError(const Model& model, int body, const char* function, const char* argument) {
  throw InvalidArgument(std::string(function) + ": " + argument + " " + std::to_string(body) + " is not in model '" +
                        model.name() + "'");
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
