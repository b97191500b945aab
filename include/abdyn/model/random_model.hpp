#pragma once
/// @file
/// Random kinematic trees for tests and benchmarks: valid random inertias (principal moments obeying
/// the triangle inequality, random principal axes), random joint placements and axes.

#include <random>
#include <string>

#include "abdyn/model/model.hpp"

namespace abdyn {

/// The shape of a random tree (randomTree, randomTreeUrdf).
struct RandomTreeOptions {
  int bodies = 10;              ///< moving bodies (not counting the world)
  bool chain = false;           ///< true: body i hangs from body i-1; false: from a uniformly random earlier body
  bool floating_base = false;   ///< the first body is attached to the world by a floating joint and
                                ///< every other body descends from it
  bool all_joint_types = false; ///< false: revolute joints only (random axes, some along x, y or z);
                                ///< true: also prismatic, helical, spherical, planar and floating joints
  bool joint_dynamics = false;  ///< random damping in [0, 0.5] and armature in [0, 0.1] on every joint
};

/// A random model with the given shape. Deterministic for a given rng state.
Model randomTree(const RandomTreeOptions& options, std::mt19937& rng);

/// The same kind of random tree as a URDF document (revolute, continuous, prismatic and fixed joints;
/// options.all_joint_types adds prismatic, continuous and fixed ones; floating_base is left to the
/// loader's option), for tests and benchmarks of the URDF path.
std::string randomTreeUrdf(const RandomTreeOptions& options, std::mt19937& rng);

}  // namespace abdyn
