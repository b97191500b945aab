// abdyn reduce: hand a robot with some joints held to other tools, as a URDF of the reduced model.

#include "reduce.hpp"

#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "abdyn/error.hpp"
#include "abdyn/io/urdf.hpp"
#include "abdyn/io/urdf_export.hpp"
#include "abdyn/io/urdf_loops.hpp"
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/reduced_model.hpp"
#include "check.hpp"
#include "model_lookup.hpp"

namespace abdyn_app {
namespace {

struct ReduceArguments {
  std::string model_path, out, q;
  std::vector<std::string> lock;
  bool floating = false;
  abdyn::UrdfOptions urdf;
};

std::vector<std::string> commaList(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream list(text);
  for (std::string item; std::getline(list, item, ',');) items.push_back(item);
  return items;
}

int reduce(const ReduceArguments& args) {
  abdyn::UrdfOptions options = args.urdf;
  options.floating_base = args.floating;
  const abdyn::Model model = abdyn::loadUrdf(args.model_path, options);
  std::vector<std::string> locked;
  for (const std::string& item : args.lock) {
    for (const std::string& name : commaList(item)) locked.push_back(name);
  }
  for (const std::string& name : locked) {
    try {
      model.jointId(name);
    } catch (const abdyn::Error& e) {
      throw UsageError(std::string("--lock: ") + e.what());
    }
  }
  // The locked joints' coordinates, in --lock's order; the neutral configuration elsewhere.
  Eigen::VectorXd q = abdyn::neutral(model);
  if (!args.q.empty()) {
    const std::vector<std::string> values = commaList(args.q);
    int needed = 0;
    for (const std::string& name : locked) needed += model.joint(name).nq;
    if (static_cast<int>(values.size()) != needed) {
      throw UsageError("--q has " + std::to_string(values.size()) + " values, but the locked joints have " +
                       std::to_string(needed) + " coordinates (one value per coordinate, in --lock's order)");
    }
    std::size_t k = 0;
    for (const std::string& name : locked) {
      const abdyn::Joint& j = model.joint(name);
      for (int c = 0; c < j.nq; ++c) q[j.idx_q + c] = parseFinite("--q", values[k++]);
    }
  }
  const abdyn::Model reduced = abdyn::buildReducedModel(model, locked, q);
  abdyn::saveUrdf(reduced, args.out);
  const std::size_t loops = abdyn::loadUrdfLoops(args.model_path, model).loops.size();
  if (loops > 0) {
    std::cerr << "abdyn reduce: warning: " << args.model_path << " has " << loops
              << " loop joint(s), which the written URDF does not hold (saveUrdf writes the tree)\n";
  }
  std::cout << "wrote " << args.out << ": model '" << reduced.name() << "', " << locked.size() << " joint(s) locked, nv "
            << reduced.nv() << " (was " << model.nv() << "), " << reduced.nbodies() - 1 << " bodies\n";
  return 0;
}

}  // namespace

void addReduce(CLI::App& app, int& status) {
  CLI::App* command = app.add_subcommand(
      "reduce", "weld joints of a model at given positions and write the reduced model as a URDF file");
  const auto args = std::make_shared<ReduceArguments>();  // lives as long as the command's callbacks
  command->add_option("MODEL.urdf", args->model_path, "a URDF file, or the name of a bundled model")->required();
  command->add_option("--lock", args->lock, "the joints to weld, comma-separated (repeatable)")
      ->type_name("J1,J2")->required();
  command->add_option("--q", args->q,
                      "the positions to weld them at: one value per coordinate of each locked joint, in --lock's "
                      "order (default: the neutral configuration)")
      ->type_name("LIST");
  command->add_option("--out", args->out, "the URDF file to write")->type_name("FILE")->required();
  command->add_flag("--floating", args->floating, "attach the root link to the world by a 6-DoF floating joint");
  addUrdfOptions(*command, args->urdf);
  command->allow_extras()->callback([command, args, &status] {
    refuseExtras(*command);
    args->model_path = resolveModelPath(args->model_path);
    status = reduce(*args);
  });
}

}  // namespace abdyn_app
