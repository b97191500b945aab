// A quadruped standing on its own collision meshes: examples/mesh_feet/mesh_feet.urdf on a floating base, its
// four feet OBJ meshes collided as convex hulls with the ground, its legs held straight by a joint-space PD law.
// Dropped from 5 mm above standing height, it stands for 2 s; exits 1 if it sinks more than 1 mm into the
// ground or does not come to rest.
//
//   example_mesh_feet examples/mesh_feet/mesh_feet.urdf

#include <algorithm>
#include <iostream>

#include "abdyn/abdyn.hpp"
#include "example_main.hpp"

int main(int argc, char** argv) {
  return example::runWithOneFile(argc, argv, "example_mesh_feet examples/mesh_feet/mesh_feet.urdf", [](const char* path) {
    abdyn::UrdfOptions options;
    options.floating_base = true;
    const abdyn::Model robot = abdyn::loadUrdf(path, options);  // loads the feet's meshes and their hulls
    abdyn::SimulatorSettings settings;
    settings.ground = true;  // every collision shape, meshes by their hulls, on the plane z = 0
    abdyn::Simulator sim(robot, settings);
    sim.q[2] = 0.48;  // the trunk's centre: 0.475 m when standing
    double deepest = 0.0;
    for (int k = 1; k <= 2000; ++k) {
      sim.tau.tail(8) = -300.0 * sim.q.tail(8) - 3.0 * sim.v.tail(8);  // hold the legs straight
      const abdyn::StepStatistics& s = sim.step(1e-3);
      if (k > 200) deepest = std::max(deepest, s.constraint_error);
      if (k % 500 == 0) {
        std::cout << "t = " << sim.time() << " s: trunk at z = " << sim.q[2] << " m, " << s.contacts
                  << " contact points, deepest " << 1e3 * s.constraint_error << " mm, energy " << s.energy << " J\n";
      }
    }
    if (deepest > 1e-3 || sim.v.norm() > 1e-2) {
      std::cerr << "the quadruped did not stand: penetration " << deepest << " m, |v| = " << sim.v.norm() << "\n";
      return 1;
    }
    return 0;
  });
}
