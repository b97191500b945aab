// libFuzzer target: the URDF loader, the loop-joint extensions, the MJCF loader and the dynamics on
// whatever loads.
//
// The contract under test (include/abdyn/io/urdf.hpp, urdf_loops.hpp, mjcf.hpp, checks): any input either loads or
// throws abdyn::Error (of which abdyn::InvalidArgument is a kind); nothing crashes, hangs, reads
// out of bounds (AddressSanitizer), overflows or divides by zero (UndefinedBehaviorSanitizer), or throws
// anything else. An exception of another type escapes and libFuzzer reports it as a crash.
//
// Built by -DABDYN_FUZZ=ON with clang (fuzz/CMakeLists.txt); CI runs it for a bounded time from a seed
// corpus of the bundled and benchmark models with fuzz/urdf.dict. The same function is linked into
// fuzz_urdf_replay (replay_main.cpp), which every build's tests run over fuzz/regressions/ and the models.

#include <cstddef>
#include <cstdint>
#include <string>

#include "abdyn/abdyn.hpp"

namespace {

// Larger models load and are checked, but their dynamics would slow the search down for nothing new.
constexpr int kMaxBodiesForDynamics = 64;

void dynamics(const abdyn::Model& model, const abdyn::ConstraintSet& loops) {
  if (model.nbodies() > kMaxBodiesForDynamics) return;
  abdyn::Data data(model);
  const Eigen::VectorXd q = abdyn::neutral(model);
  const Eigen::VectorXd v = Eigen::VectorXd::Ones(model.nv());
  const Eigen::VectorXd tau = Eigen::VectorXd::Zero(model.nv());
  try {
    abdyn::forwardKinematics(model, data, q, v);
    abdyn::inverseDynamics(model, data, q, v, tau);
    abdyn::massMatrix(model, data, q);
    abdyn::factorizeMassMatrix(model, data);
    abdyn::forwardDynamics(model, data, q, v, tau);
    abdyn::mechanicalEnergy(model, data, q, v);
  } catch (const abdyn::Error&) {  // a singular mass matrix or a bad argument is reported, not a crash
  }
  if (loops.rows() == 0) return;
  try {
    abdyn::ConstrainedDynamicsData cd(model, loops);
    abdyn::forwardDynamicsConstrained(model, data, cd, loops, q, v, tau);
  } catch (const abdyn::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  static const bool quiet = [] {
    abdyn::logger()->set_level(spdlog::level::off);  // warnings about odd inertias would flood the output
    return true;
  }();
  (void)quiet;
  const std::string xml(reinterpret_cast<const char*>(bytes), size);
  for (const bool floating : {false, true}) {
    abdyn::UrdfOptions options;
    options.floating_base = floating;
    options.accept_invalid_inertia = floating;  // both paths of the inertia checks
    abdyn::Model model;
    try {
      model = abdyn::loadUrdfString(xml, options);
    } catch (const abdyn::Error&) {
      continue;
    }
    abdyn::ConstraintSet loops;
    try {
      loops = abdyn::loadUrdfLoopsString(xml, model);
    } catch (const abdyn::Error&) {
    }
    dynamics(model, loops);
  }
  if (xml.find("<mujoco") == std::string::npos) return 0;
  try {
    const abdyn::MjcfModel mjcf = abdyn::loadMjcfModelString(xml);
    dynamics(mjcf.model, mjcf.constraints);
  } catch (const abdyn::Error&) {
  }
  return 0;
}
