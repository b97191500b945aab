// `abdyn view`: the page (page.hpp) written into --out or a new temporary folder, and served (http_server.hpp).

#include "view.hpp"

#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "check.hpp"  // the URDF options shared by every command
#include "http_server.hpp"
#include "model_lookup.hpp"
#include "page.hpp"

namespace fs = std::filesystem;

namespace abdyn_app {
namespace {

int parsePort(const std::string& option, const std::string& text) {
  const double p = parseFinite(option, text);
  if (p != std::floor(p) || p < 0 || p > 65535) throw UsageError(option + " expects 0 to 65535, got '" + text + "'");
  return static_cast<int>(p);
}

std::string parseFolder(const std::string& option, const std::string& text) {
  if (text.empty()) throw UsageError(option + " needs a folder");
  return text;
}

struct ViewArguments {
  PageInputs inputs;
  std::string out;
  int port = 8765;
};

// A new folder under the temporary directory, removed with everything in it when this goes out of scope.
class TemporaryFolder {
 public:
  TemporaryFolder() {
    std::string pattern = (fs::temp_directory_path() / "abdyn-view-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot make a folder under " + fs::temp_directory_path().string());
    path_ = pattern;
  }
  ~TemporaryFolder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Writes the page (see addView) and serves it unless only --out was given. Without --out the page goes
// to a temporary folder that is removed when the server stops (Ctrl-C, SIGTERM, SIGHUP) or on an error;
// a stopping signal then ends the program as it would have without the handler.
void view(ViewArguments& args, bool port_given) {
  const bool out_given = !args.out.empty();
  if (out_given && !port_given) {  // --out alone: the page is written, nothing is served
    writePage(args.inputs, args.out);
    return;
  }
  int stopped_by = 0;
  {
    std::optional<TemporaryFolder> temporary;
    if (!out_given) args.out = temporary.emplace().path();
    writePage(args.inputs, args.out);
    std::cout.flush();
    stopped_by = serve(args.out, args.port);
  }
  std::signal(stopped_by, SIG_DFL);
  std::raise(stopped_by);
}

}  // namespace

void addView(CLI::App& app) {
  CLI::App* command = app.add_subcommand(
      "view", "write a browser page of a model (and of a run's CSV) and serve it on 127.0.0.1 until Ctrl-C");
  const auto args = std::make_shared<ViewArguments>();  // lives as long as the command's callbacks
  command->add_option("MODEL.urdf", args->inputs.model_path, "a URDF file, or the name of a bundled model")->required();
  command->add_option("--csv", args->inputs.csv_path, "replay the trajectory FILE written by `abdyn simulate --csv`")
      ->type_name("FILE");
  command->add_flag("--floating", args->inputs.floating, "attach the root link to the world by a 6-DoF floating joint");
  addUrdfOptions(*command, args->inputs.urdf);
  command->add_option_function<std::string>("--ground", [args](const std::string& text) {
    args->inputs.ground = parseFinite("--ground", text);
  }, "draw the ground plane at z = Z (default 0)")->type_name("Z");
  const CLI::Option* port = addParsed(*command, "--port", "P", args->port, parsePort,
                                      "serve on port P (default 8765; 0 picks a free port)");
  addParsed(*command, "--out", "DIR", args->out, parseFolder,
            "write the page into DIR (default: a new folder under the temporary directory); with --out and no "
            "--port the page is only written");
  command->allow_extras()->callback([command, args, port] {
    refuseExtras(*command);
    args->inputs.model_path = resolveModelPath(args->inputs.model_path);
    view(*args, port->count() > 0);
  });
}

}  // namespace abdyn_app
