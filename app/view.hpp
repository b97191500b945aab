#pragma once
// `abdyn view`: writes the browser page of a model and its trajectory (page.hpp) and serves it on
// 127.0.0.1 (http_server.hpp).

#include <CLI/CLI.hpp>

namespace abdyn_app {

/// Adds `abdyn view MODEL.urdf [--csv FILE] [--floating] [URDF options] [--ground Z] [--port P] [--out DIR]` to app.
void addView(CLI::App& app);

}  // namespace abdyn_app
