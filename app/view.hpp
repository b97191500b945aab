#pragma once
// `abdyn view` and `abdyn simulate --html`: the browser page of a model and its trajectory (viewer/).

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "abdyn/io/urdf.hpp"

namespace abdyn_app {

/// What the page shows: a URDF model and, optionally, a trajectory CSV written by `abdyn simulate --csv`.
struct PageInputs {
  std::string model_path;
  bool floating = false;
  abdyn::UrdfOptions urdf;      // loading options; floating_base comes from `floating`
  std::string csv_path;         // empty: the model alone
  std::optional<double> ground;  // height of the ground plane drawn under the robot (default 0)
};

/// Writes dir/index.html with the viewer's files and dir/data.js (the model, its meshes and the
/// trajectory); creates dir if needed. Throws std::runtime_error or abdyn::Error on bad input.
void writePage(const PageInputs& inputs, const std::string& dir);

/// Before `simulate --html DIR` runs: checks that the viewer is built (throws if not), creates DIR and
/// returns the CSV path to write, csv_path or, when that is empty, DIR/trajectory.csv.
std::string prepareHtml(const std::string& dir, const std::string& csv_path);

/// Adds `abdyn view MODEL.urdf [--csv FILE] [--floating] [URDF options] [--ground Z] [--port P] [--out DIR]` to app.
void addView(CLI::App& app);

}  // namespace abdyn_app
