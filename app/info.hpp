#pragma once
// `abdyn info MODEL.urdf`: a model's tree, masses, limits, loop joints and mimic couplings.

#include "model_command.hpp"

namespace abdyn_app {

/// Prints the model's summary to stdout (load warnings on stderr); returns the exit status.
int info(const Arguments& args);

}  // namespace abdyn_app
