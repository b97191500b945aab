// A ragdoll: the humanoid on a floating base, its URDF joint limits enforced as constraint rows, its
// collision shapes in contact with the ground, dropped from 1.2 m and stepped by abdyn::Simulator
// (ABA for the free velocity, projected Gauss-Seidel on the rows, q += h S v on the manifold).
//
//   example_ragdoll models/humanoid.urdf

#include <iostream>

#include "abdyn/abdyn.hpp"
#include "example_main.hpp"

int main(int argc, char** argv) {
  return example::runWithOneFile(argc, argv, "example_ragdoll models/humanoid.urdf", [](const char* path) {
    abdyn::UrdfOptions options;
    options.floating_base = true;
    abdyn::SimulatorSettings settings;
    settings.joint_limits = true;  // URDF position limits as unilateral rows
    settings.ground = true;        // contacts with the plane z = 0
    abdyn::Simulator sim(abdyn::loadUrdf(path, options), settings);
    sim.q[2] = 1.2;  // the floating base's height
    sim.v[0] = 1.5;  // tumbling about its body x axis, so it falls over
    for (int k = 1; k <= 1500; ++k) {
      const abdyn::StepStatistics& s = sim.step(1e-3);
      if (k % 300 == 0) {
        std::cout << "t = " << sim.time() << " s: pelvis at z = " << sim.q[2] << " m, " << s.contacts << " contacts, "
                  << s.rows << " rows, " << s.iterations << " solver sweeps, energy " << s.energy << " J\n";
      }
    }
    return 0;
  });
}
