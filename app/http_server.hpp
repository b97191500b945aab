#pragma once
// The smallest server that lets a browser on the same machine open a folder: GET (or HEAD) of the folder's
// own files only, on 127.0.0.1.

#include <string>

namespace abdyn_app {

/// Serves the files under `dir` on 127.0.0.1:port (0 picks a free port, which is printed) until SIGINT,
/// SIGTERM or SIGHUP arrives (it installs their handlers), and returns that signal. Throws
/// std::runtime_error when it cannot listen.
int serve(const std::string& dir, int port);

}  // namespace abdyn_app
