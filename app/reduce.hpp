#pragma once
// `abdyn reduce`: a URDF with some joints welded (buildReducedModel), written back as URDF (saveUrdf).

#include <CLI/CLI.hpp>

namespace abdyn_app {

/// `abdyn reduce MODEL.urdf --lock J1,J2 [--q LIST] [--floating] [URDF options] --out FILE`; `status`
/// becomes 0 once the file is written.
void addReduce(CLI::App& app, int& status);

}  // namespace abdyn_app
