#pragma once
// A command of the abdyn program on one model (info, simulate): its arguments, the model and constraints they
// load, and what both commands say about a model.

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "abdyn/abdyn.hpp"

namespace abdyn_app {

/// The arguments of info and simulate, whichever runs.
struct Arguments {
  std::string model_path, csv_path, q0;
  bool floating = false;
  abdyn::UrdfOptions urdf;  // all but floating_base, which `floating` gives
  double duration = 5.0;
  double dt = 1e-3;
  bool dt_given = false;  // --dt was given; otherwise a model's own time step (MJCF's <option timestep>) applies
  std::string integrator;  // empty: chosen by the model (see --integrator's help)
  int substeps = 1;
  bool ground = false;
  double ground_height = 0.0;
  bool limits = false;
  bool no_limits = false;
  bool height_given = false;
  double height = 0.0;
  std::string html_dir;  // simulate --html: the page's folder
  std::string srdf_path;  // simulate --srdf: collide the bodies with each other but the pairs it disables
  std::string keyframe;  // simulate --keyframe: start from this named configuration
  bool no_body_contacts = false;  // simulate --no-body-contacts: an MJCF file's bodies do not collide with each other
  bool no_world_shapes = false;  // simulate --no-world-shapes: the world's own collision shapes do not collide
  bool rows() const { return ground || limits || !srdf_path.empty(); }
};

/// Adds a command on one model: MODEL.urdf (a path or a bundled model's name), --floating and the URDF options.
CLI::App* addModelCommand(CLI::App& app, const std::string& name, const std::string& description, Arguments& args);

/// The model the arguments name, loaded with their URDF options.
abdyn::Model load(const Arguments& args);

/// The loop joints of the file and the model's mimic couplings, which the loop path enforces as well.
abdyn::ConstraintSet constraints(const Arguments& args, const abdyn::Model& model);

/// What closedConfiguration's `how` says when the neutral configuration closes the loops within the limits.
inline constexpr const char* kNeutralCloses = "the neutral configuration closes them";

/// The start configuration of a model with loops: Gauss-Newton from the neutral configuration, then from
/// guesses that move away from it towards fixed-seed random ones in growing steps, so that the closed
/// configuration found is near the neutral one and the same on every run. The first one within the
/// joints' position limits is taken; the first closed one outside them only when no guess gives one inside.
/// `how` says which.
Eigen::VectorXd closedConfiguration(const abdyn::Model& model, const abdyn::ConstraintSet& set, std::string& how);

/// Coordinate labels: <joint> for one-coordinate joints, <joint>[k] otherwise.
std::vector<std::string> labels(const abdyn::Model& model, bool positions);

/// x's entries, comma-separated.
std::string formatVector(const Eigen::VectorXd& x);
/// "name=value" per coordinate, comma-separated.
std::string namedValues(const std::vector<std::string>& names, const Eigen::VectorXd& x);

/// Whether some joint of the model has positive damping.
bool hasDamping(const abdyn::Model& model);

/// Whether body 1 hangs from the world by a free joint (S the identity), whose q starts with the position
/// (the joint table, joint.hpp): the base --height and the ground lift move.
bool floatingRoot(const abdyn::Model& model);

}  // namespace abdyn_app
