#pragma once
// Loading MuJoCo models from text, shared by the MuJoCo adapters of bench_peers and bench_step_peers.

#include <mujoco/mujoco.h>

#include <memory>
#include <string>

#include "peer.hpp"

namespace abdyn_bench {

using MujocoModel = std::unique_ptr<mjModel, decltype(&mj_deleteModel)>;

/// Compiles XML text (URDF or MJCF; `name` ends in .urdf or .xml) through a virtual file system; on
/// failure returns null and sets error to MuJoCo's message.
MujocoModel loadMujocoText(const std::string& xml, const char* name, std::string& error);

/// The URDF file of `problem` with a MuJoCo <compiler> section (inertiafromgeom="false", and with
/// `repair` the compiler's inertia repairs) and, for a floating base (problem.floating_base), a "world"
/// link and a floating joint to the root link, which MuJoCo turns into a free joint. Floating joints the
/// file declares itself stay as they are.
std::string mujocoUrdf(const Problem& problem, bool repair, std::string& error);

}  // namespace abdyn_bench
