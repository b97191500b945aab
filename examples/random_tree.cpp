// Writes a random kinematic tree as a URDF document to stdout, for tests and benchmarks of your own:
//   example_random_tree BODIES [chain|tree] [SEED] > random.urdf
// Inertias are valid (principal moments obeying the triangle inequality, random principal axes);
// joint placements and axes are random; joints are revolute, continuous, prismatic and fixed.

#include <iostream>
#include <string>

#include "abdyn/abdyn.hpp"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::cerr << "usage: example_random_tree BODIES [chain|tree] [SEED]\n";
    return 2;
  }
  abdyn::RandomTreeOptions options;
  unsigned seed = 1;
  try {
    options.bodies = std::stoi(argv[1]);
    if (argc > 3) seed = static_cast<unsigned>(std::stoul(argv[3]));
  } catch (const std::exception&) {
    std::cerr << "example_random_tree: BODIES and SEED must be whole numbers\n";
    return 2;
  }
  const std::string shape = argc > 2 ? argv[2] : "tree";
  if (shape != "chain" && shape != "tree") {
    std::cerr << "example_random_tree: shape must be 'chain' or 'tree', got '" << shape << "'\n";
    return 2;
  }
  options.chain = shape == "chain";
  options.all_joint_types = true;
  std::mt19937 rng(seed);
  try {
    std::cout << abdyn::randomTreeUrdf(options, rng);
  } catch (const std::exception& e) {
    std::cerr << "example_random_tree: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
