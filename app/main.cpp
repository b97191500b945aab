// abdyn: the command-line program. The commands and their options are CLI11 subcommands (main, below);
// `abdyn COMMAND --help` lists a command's options.

#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "check.hpp"
#include "info.hpp"
#include "model_lookup.hpp"
#include "reduce.hpp"
#include "simulate.hpp"
#include "view.hpp"

namespace {

// The help's footer: every command at a glance (README.md's "The command-line program" shows the same).
constexpr const char* kCommands =
    "Commands:\n"
    "  abdyn info MODEL.urdf [--floating] [URDF options]\n"
    "  abdyn check FILE_OR_FOLDER... [URDF options] [--warnings]\n"
    "  abdyn simulate MODEL.urdf [--floating] [URDF options] [--duration S] [--dt H] [--q0 LIST] [--height Z]\n"
    "                 [--csv FILE] [--integrator NAME] [--substeps N] [--ground Z] [--limits] [--html DIR]\n"
    "  abdyn view MODEL.urdf [--csv FILE] [--floating] [URDF options] [--ground Z] [--port P] [--out DIR]\n"
    "  abdyn reduce MODEL.urdf --lock J1,J2 [--q LIST] [--floating] [URDF options] --out FILE\n"
    "  abdyn help, abdyn --help   print this text\n"
    "  abdyn --version            print the version\n"
    "  abdyn COMMAND --help       print a command's options\n";

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("abdyn: simulate and inspect URDF robots with the abdyn library", "abdyn");
  app.set_version_flag("--version", "abdyn " ABDYN_VERSION);
  int status = 0;
  abdyn_app::Arguments args;  // of info or simulate, whichever runs
  CLI::App* info_command = abdyn_app::addModelCommand(
      app, "info", "print a model's tree, masses, limits, loop joints and mimic couplings (warnings on stderr)", args);
  info_command->callback([&] {
    abdyn_app::refuseExtras(*info_command);
    args.model_path = resolveModelPath(args.model_path);
    status = abdyn_app::info(args);
  });
  CLI::App* simulate_command = abdyn_app::addModelCommand(
      app, "simulate", "simulate a model under gravity with zero joint torque; print a summary (and a CSV)", args);
  abdyn_app::addSimulateOptions(*simulate_command, args);
  simulate_command->callback([&] {
    abdyn_app::refuseExtras(*simulate_command);
    args.model_path = resolveModelPath(args.model_path);
    abdyn_app::checkSimulateArguments(args);
    status = abdyn_app::simulate(args);
  });
  abdyn_app::addCheck(app, status);
  abdyn_app::addView(app);
  abdyn_app::addReduce(app, status);
  app.add_subcommand("help", "print this text")->callback([&app] {
    std::cout << app.get_formatter()->make_help(&app, "abdyn", CLI::AppFormatMode::Normal);
  });
  app.add_subcommand("version", "print the version")->callback([] { std::cout << "abdyn " ABDYN_VERSION "\n"; });
  app.footer(kCommands);  // after the commands, which would inherit it
  const auto usage = [](const std::string& message) {
    std::cerr << "abdyn: " << message << "\n(abdyn help lists the commands, abdyn COMMAND --help a command's options)\n";
    return 2;
  };
  try {
    app.allow_extras()->parse(argc, argv);
    if (app.get_subcommands().empty()) {
      return usage(app.remaining().empty() ? "missing command" : "unknown command '" + app.remaining().front() + "'");
    }
    return status;
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ArgumentMismatch& e) {  // CLI11's "--dt: 1 required H missing", say
    const std::string text = e.what();
    const bool missing = text.size() > 8 && text.compare(text.size() - 8, 8, " missing") == 0;
    return usage(missing ? text.substr(0, text.find(':')) + " needs a value" : text);
  } catch (const CLI::RequiredError& e) {  // CLI11's "MODEL.urdf is required"
    const std::string text = e.what();
    return usage("missing " + text.substr(0, text.find(' ')));
  } catch (const CLI::ParseError& e) {
    return usage(e.what());
  } catch (const abdyn_app::UsageError& e) {
    return usage(e.what());
  } catch (const std::exception& e) {
    std::cerr << "abdyn: " << e.what() << "\n";
    return 1;
  }
}
