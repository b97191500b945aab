// Loads a chain of N revolute links (ModelBuilder, or URDF text through loadUrdfString with --urdf), builds
// its Data and runs ABA once from a tilted start, printing the time of each stage (wall clock, and the
// process's CPU time, which a busy shared machine inflates less) and the peak memory: the scale figures
// of docs/performance.md. Exits non-zero if the accelerations are not finite or RNEA at
// them does not return the applied (zero) joint forces.
//   usage: example_deep_chain N [--urdf]
#include <sys/resource.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include "abdyn/abdyn.hpp"

namespace {

double seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double cpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

abdyn::Model builderChain(int n) {
  abdyn::ModelBuilder builder("chain");
  builder.reserve(n + 1);
  const abdyn::RigidBodyInertia link(1.0, abdyn::Vector3(0.0, 0.0, -0.05), abdyn::Matrix3::Identity() * 1e-3);
  int parent = 0;
  for (int i = 1; i <= n; ++i) {
    abdyn::JointSpec joint;
    joint.name = "j" + std::to_string(i);
    joint.axis = abdyn::Vector3::UnitX();
    const abdyn::Plx X_tree = i == 1 ? abdyn::Plx() : abdyn::Plx::translation(abdyn::Vector3(0.0, 0.0, -0.1));
    parent = builder.addBody(parent, joint, X_tree, link, "l" + std::to_string(i));
  }
  return std::move(builder).build();
}

// The same chain as URDF text: each link 0.1 m below its parent, its mass 0.05 m below its joint.
std::string urdfChain(int n) {
  std::string xml = "<robot name=\"chain\"><link name=\"l0\"/>";
  for (int i = 1; i <= n; ++i) {
    const std::string link = "l" + std::to_string(i), parent = "l" + std::to_string(i - 1);
    xml += "<link name=\"" + link + "\"><inertial><origin xyz=\"0 0 -0.05\"/><mass value=\"1\"/>"
           "<inertia ixx=\"1e-3\" iyy=\"1e-3\" izz=\"1e-3\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial></link>"
           "<joint name=\"j" + std::to_string(i) + "\" type=\"continuous\"><parent link=\"" + parent +
           "\"/><child link=\"" + link + "\"/><origin xyz=\"0 0 " + (i == 1 ? "0" : "-0.1") +
           "\"/><axis xyz=\"1 0 0\"/></joint>";
  }
  return xml + "</robot>";
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 0;
  const bool urdf = argc > 2 && std::strcmp(argv[2], "--urdf") == 0;
  if (n < 1 || (argc > 2 && !urdf) || argc > 3) {
    std::fprintf(stderr, "usage: example_deep_chain N [--urdf]   (N >= 1 links)\n");
    return 2;
  }
  const std::string text = urdf ? urdfChain(n) : std::string();
  const double t0 = seconds(), c0 = cpuSeconds();
  const abdyn::Model model = urdf ? abdyn::loadUrdfString(text) : builderChain(n);
  const double t1 = seconds(), c1 = cpuSeconds();
  abdyn::Data data(model);
  const double t2 = seconds();
  Eigen::VectorXd q = Eigen::VectorXd::Zero(n), zero = Eigen::VectorXd::Zero(n);
  q[0] = 0.3;  // the whole chain tilted: it swings as one pendulum
  const Eigen::VectorXd qdd = abdyn::forwardDynamics(model, data, q, zero, zero);
  const double t3 = seconds();
  // RNEA at ABA's accelerations gives back the applied zero forces, to rounding relative to gravity's torques.
  const double scale = abdyn::gravityTorques(model, data, q).cwiseAbs().maxCoeff();
  const double residual = abdyn::inverseDynamics(model, data, q, zero, qdd).cwiseAbs().maxCoeff();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("%d links (%s): load %.3f s (CPU %.3f s), Data %.3f s, ABA %.3f s; peak memory %ld MB; |RNEA(ABA)| %.2g of %.3g\n",
              n, urdf ? "URDF" : "ModelBuilder", t1 - t0, c1 - c0, t2 - t1, t3 - t2, usage.ru_maxrss / 1024, residual, scale);
  return qdd.allFinite() && residual <= 1e-6 * scale ? 0 : 1;
}
