#pragma once
// `abdyn simulate MODEL.urdf`: its options, and the run: start state, steps, CSV rows and the summary.

#include <CLI/CLI.hpp>

#include "model_command.hpp"

namespace abdyn_app {

/// Adds simulate's options (--duration, --dt, --q0, --height, --csv, --integrator, --substeps, --ground,
/// --limits, --html) to `command`, writing into `args`.
void addSimulateOptions(CLI::App& command, Arguments& args);

/// What the options say together, once each is valid on its own: throws UsageError otherwise.
void checkSimulateArguments(Arguments& args);

/// Runs the simulation and prints its summary; returns the exit status.
int simulate(Arguments args);

}  // namespace abdyn_app
