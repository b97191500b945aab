#include "info.hpp"

#include <cmath>
#include <iostream>
#include <sstream>
#include <string>

namespace abdyn_app {
namespace {

std::string formatLimit(double x) {
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  std::ostringstream s;
  s << x;
  return s.str();
}

}  // namespace

int info(const Arguments& args) {
  const abdyn::Model model = load(args);
  std::cout << "model " << model.name() << ": " << model.nbodies() - 1 << " bodies, nq = " << model.nq()
            << ", nv = " << model.nv() << ", mass " << model.totalMass() << " kg\n";
  for (int i = 1; i < model.nbodies(); ++i) {
    const abdyn::Joint& j = model.joint(i);
    int depth = 0;
    for (int p = model.parent(i); p > 0; p = model.parent(p)) ++depth;
    std::cout << std::string(2 * depth + 2, ' ') << model.bodyName(i) << "  (joint " << j.name << ", " << j.type
              << ", parent " << model.bodyName(model.parent(i)) << ", mass " << model.inertia(i).mass() << " kg";
    if (j.nq == 1) {
      std::cout << ", range [" << formatLimit(model.lowerPositionLimit()[j.idx_q]) << ", "
                << formatLimit(model.upperPositionLimit()[j.idx_q]) << "]";
    }
    std::cout << ", velocity " << formatLimit(model.velocityLimit()[j.idx_v]) << ", effort "
              << formatLimit(model.effortLimit()[j.idx_v]);
    if (model.damping()[j.idx_v] > 0.0) std::cout << ", damping " << model.damping()[j.idx_v];
    std::cout << ")\n";
  }
  std::cout << "frames: " << model.nframes() << ", geometries: " << model.geometries().size() << "\n";
  for (const abdyn::MimicCoupling& m : model.mimics()) {
    std::cout << "mimic: " << model.joint(m.follower).name << " = " << m.multiplier << " * " << model.joint(m.leader).name
              << " + " << m.offset << "\n";
  }
  const abdyn::ConstraintSet set = constraints(args, model);
  for (const abdyn::LoopClosure& loop : set.loops) {
    std::cout << "loop joint: " << loop.name << " (" << loop.rows() << " constraint rows) between "
              << model.bodyName(loop.body_a) << " and " << model.bodyName(loop.body_b) << "\n";
  }
  if (!set.loops.empty()) {
    std::string how;
    const Eigen::VectorXd q = closedConfiguration(model, set, how);
    std::cout << "closed configuration: " << how << "; simulate starts there:\n  --q0 " << formatVector(q) << "\n";
  }
  return 0;
}

}  // namespace abdyn_app
