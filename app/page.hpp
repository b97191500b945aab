#pragma once
// The browser page of `abdyn view` and `abdyn simulate --html`: the files built from viewer/ plus a data.js
// holding the model, its meshes and the trajectory.
//
// The page fetches nothing: data.js is a script that sets window.ABDYN_DATA, and meshes travel inside it
// base64-encoded, so the folder opens from file:// as well as from a server.

#include <optional>
#include <string>

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

}  // namespace abdyn_app
