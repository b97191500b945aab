#include "model_command.hpp"

#include <algorithm>
#include <random>
#include <sstream>
#include <stdexcept>

#include "check.hpp"
#include "model_lookup.hpp"

namespace abdyn_app {

CLI::App* addModelCommand(CLI::App& app, const std::string& name, const std::string& description, Arguments& args) {
  CLI::App* command = app.add_subcommand(name, description)->allow_extras();
  command->add_option("MODEL.urdf", args.model_path, "a URDF or MJCF (.xml) file, or the name of a bundled model")->required();
  command->add_flag("--floating", args.floating, "attach the root link to the world by a 6-DoF floating joint");
  abdyn_app::addUrdfOptions(*command, args.urdf);
  return command;
}

abdyn::Model load(const Arguments& args) {
  abdyn::UrdfOptions options = args.urdf;
  options.floating_base = args.floating;
  return loadModelFile(args.model_path, options);
}

abdyn::ConstraintSet constraints(const Arguments& args, const abdyn::Model& model) {
  return loadModelConstraints(args.model_path, model);  // a URDF's loop joints and mimics, an MJCF file's equalities
}

Eigen::VectorXd closedConfiguration(const abdyn::Model& model, const abdyn::ConstraintSet& set, std::string& how) {
  abdyn::Data data(model);
  abdyn::ConstrainedDynamicsData cd(model, set);
  const Eigen::VectorXd q_neutral = abdyn::neutral(model);
  Eigen::VectorXd q = q_neutral;
  try {
    abdyn::projectPositions(model, data, cd, set, q, 1e-12, 100);
    how = "the neutral configuration closes them";
    return q;
  } catch (const abdyn::Error&) {
  }
  std::mt19937 rng(2024);
  const int attempts = 60;
  for (int a = 1; a <= attempts; ++a) {
    const Eigen::VectorXd towards = abdyn::difference(model, q_neutral, abdyn::randomConfiguration(model, rng));
    abdyn::integrate(model, q_neutral, towards, std::min(1.0, 0.1 * ((a + 5) / 6)), q);
    try {
      abdyn::projectPositions(model, data, cd, set, q, 1e-12, 100);
      how = "the neutral configuration does not close them; found from a guess near it (seed 2024, guess " +
            std::to_string(a) + ")";
      return q;
    } catch (const abdyn::Error&) {
    }
  }
  throw std::runtime_error("model '" + model.name() + "': no configuration closing its loops was found from the " +
                           "neutral one or " + std::to_string(attempts) + " guesses near it; give one with --q0");
}

std::vector<std::string> labels(const abdyn::Model& model, bool positions) {
  std::vector<std::string> out;
  for (int i = 1; i < model.nbodies(); ++i) {
    const abdyn::Joint& j = model.joint(i);
    const int n = positions ? j.nq : j.nv;
    for (int k = 0; k < n; ++k) out.push_back(n == 1 ? j.name : j.name + "[" + std::to_string(k) + "]");
  }
  return out;
}

std::string namedValues(const std::vector<std::string>& names, const Eigen::VectorXd& x) {
  std::ostringstream s;
  for (Eigen::Index k = 0; k < x.size(); ++k) s << (k ? ", " : "") << names[static_cast<std::size_t>(k)] << "=" << x[k];
  return s.str();
}

std::string formatVector(const Eigen::VectorXd& x) {
  std::ostringstream s;
  for (Eigen::Index k = 0; k < x.size(); ++k) s << (k ? "," : "") << x[k];
  return s.str();
}

bool hasDamping(const abdyn::Model& model) { return model.damping().size() > 0 && model.damping().maxCoeff() > 0.0; }

bool floatingRoot(const abdyn::Model& model) {
  return model.nbodies() > 1 && model.parent(1) == 0 && model.joint(1).identitySubspace();
}

}  // namespace abdyn_app
