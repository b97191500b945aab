// abdyn check: what a user runs on a robot collection before using it.

#include "check.hpp"
#include "model_lookup.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include <spdlog/sinks/base_sink.h>

#include "abdyn/error.hpp"
#include "abdyn/io/resource_resolver.hpp"
#include "abdyn/io/urdf_loops.hpp"
#include "abdyn/logging.hpp"

namespace abdyn_app {

double parseFinite(const std::string& option, const std::string& text) {
  std::size_t used = 0;
  double x = 0.0;
  try {
    x = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !std::isfinite(x)) {
    throw UsageError(option + " expects a finite number, got '" + text + "'");
  }
  return x;
}

void refuseExtras(const CLI::App& command) {
  for (const std::string& a : command.remaining()) {
    if (!a.empty() && a[0] == '-') throw UsageError("unknown option '" + a + "' for '" + command.get_name() + "'");
    throw UsageError("unexpected argument '" + a + "'");
  }
}

namespace {

namespace fs = std::filesystem;

double parseNonNegative(const std::string& option, const std::string& text) {
  const double x = parseFinite(option, text);
  if (x < 0.0) throw UsageError(option + " expects a finite number >= 0, got '" + text + "'");
  return x;
}

// Counts the warnings abdyn logs while a file loads, and keeps their text.
class WarningSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  std::vector<std::string> take() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::string> out;
    out.swap(warnings_);
    return out;
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    if (msg.level < spdlog::level::warn) return;
    warnings_.emplace_back(msg.payload.begin(), msg.payload.end());
  }
  void flush_() override {}

 private:
  std::vector<std::string> warnings_;
};

// Restores abdyn's default logger when the check ends, however it ends.
struct LoggerRestore {
  ~LoggerRestore() { abdyn::setLogger(nullptr); }
};

bool isUrdf(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".urdf";
}

// The files named, and the *.urdf files under the folders named (recursively), folders in sorted order.
std::vector<std::string> collect(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (!fs::is_directory(input, ec)) {
      files.push_back(input);  // a missing file is reported by the loader
      continue;
    }
    std::vector<std::string> found;
    for (auto it = fs::recursive_directory_iterator(input, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file(ec) && isUrdf(it->path())) found.push_back(it->path().string());
    }
    if (ec) throw std::runtime_error("cannot read folder '" + input + "': " + ec.message());
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

// The loader's message without the leading "<path>: ", which the line already shows.
std::string reason(const std::string& message, const std::string& path) {
  const std::string prefix = path + ": ";
  return message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message;
}

}  // namespace

void addUrdfOptions(CLI::App& command, abdyn::UrdfOptions& options) {
  const std::string group = "URDF options (include/abdyn/io/urdf.hpp)";
  command.add_flag("--strict", options.strict,
                   "refuse what the loader otherwise repairs or ignores with a warning (inertias that are indefinite "
                   "or break the triangle inequality, negative or missing limits, dangling mimics, nameless materials, "
                   "unreadable visuals or collisions)")->group(group);
  command.add_flag("--balance-inertia", options.balance_inertia,
                   "give links that break the triangle inequality the isotropic inertia of the same trace")->group(group);
  addParsed(command, "--bound-mass", "M", options.bound_mass, parseNonNegative,
            "raise each moving body's mass to at least M kg (loads files whose massless links make the mass "
            "matrix singular)")->group(group);
  addParsed(command, "--bound-inertia", "I", options.bound_inertia, parseNonNegative,
            "raise each moving body's principal moments to at least I kg m^2")->group(group);
  command.add_flag("--accept-invalid-inertia", options.accept_invalid_inertia,
                   "load bodies whose inertia is indefinite (with a warning) instead of refusing the file")->group(group);
  command.add_option_function<std::vector<std::string>>(
             "--package",
             [&options](const std::vector<std::string>& dirs) {
               for (const std::string& dir : dirs) {
                 try {
                   abdyn::addPackageDir(options.package_dirs, dir);
                 } catch (const abdyn::InvalidArgument& e) {
                   throw UsageError(std::string("--package: ") + e.what());
                 }
               }
             },
             "NAME=DIR: the folder of ROS package NAME, for package://NAME/... mesh names (searched before "
             "ROS_PACKAGE_PATH, AMENT_PREFIX_PATH and the URDF's folder and its parents; repeatable)")
      ->type_name("NAME=DIR")->group(group);
}

namespace {

struct CheckArguments {
  std::vector<std::string> inputs;
  abdyn::UrdfOptions options;
  bool show_warnings = false;
};

// What loading one file in one mode gave.
enum class Outcome { Loaded, Kinematic, NotApplicable, Refused };

struct ModeResult {
  Outcome outcome = Outcome::Refused;
  std::string text;  // the line's details: sizes and warnings, or the reason
  std::vector<std::string> warnings;
  bool root_massless = false;  // the model's body 1 is among its massless bodies
};

std::string bodyList(const abdyn::Model& model) {
  std::string out;
  const std::vector<int>& bodies = model.masslessBodies();
  for (std::size_t k = 0; k < bodies.size() && k < 4; ++k) out += (k ? ", '" : "'") + model.bodyName(bodies[k]) + "'";
  if (bodies.size() > 4) out += " and " + std::to_string(bodies.size() - 4) + " more";
  return out;
}

// The file loaded (tree and loop joints, as `info` and `simulate` load it) in one mode.
ModeResult loadMode(const std::string& file, const abdyn::UrdfOptions& options, WarningSink& sink) {
  ModeResult r;
  try {
    const abdyn::Model model = loadModelFile(file, options);
    const abdyn::ConstraintSet loops = loadModelConstraints(file, model);
    r.warnings = sink.take();
    std::ostringstream s;
    s << "nq " << model.nq() << ", nv " << model.nv() << ", " << model.nbodies() - 1 << " bodies";
    if (!loops.loops.empty()) s << ", " << loops.loops.size() << " loop joints";
    if (model.hasDynamics()) {
      r.outcome = Outcome::Loaded;
      s << ", mass " << model.totalMass() << " kg";
    } else {
      r.outcome = Outcome::Kinematic;
      r.root_massless = !model.masslessBodies().empty() && model.masslessBodies().front() == 1;
      s << ", no dynamics (massless: " << bodyList(model) << "; --bound-mass/--bound-inertia give it some)";
    }
    s << ", " << r.warnings.size() << (r.warnings.size() == 1 ? " warning" : " warnings");
    r.text = s.str();
  } catch (const abdyn::Error& e) {
    sink.take();
    r.text = reason(e.what(), file);
  }
  return r;
}

// Loads every file fixed and floating (see addCheck) and returns the exit status.
int check(CheckArguments args) {
  abdyn::UrdfOptions& options = args.options;
  const std::vector<std::string> files = collect(args.inputs);

  const auto sink = std::make_shared<WarningSink>();
  const LoggerRestore restore;
  auto log = std::make_shared<spdlog::logger>("abdyn-check", sink);
  log->set_level(spdlog::level::warn);
  abdyn::setLogger(log);

  int count[2][4] = {{0, 0, 0, 0}, {0, 0, 0, 0}};  // by mode, by Outcome
  for (const std::string& file : files) {
    options.floating_base = false;
    const ModeResult fixed = loadMode(file, options, *sink);
    options.floating_base = true;
    ModeResult floating = loadMode(file, options, *sink);
    // A floating base applies to a file whose root link can fly: not to one that holds its robot from
    // 'world' itself, nor to one whose root link is massless (a pendulum's support) when its fixed base
    // gives dynamics.
    if (isMjcfFile(file)) {
      floating.outcome = Outcome::NotApplicable;
      floating.text = "an MJCF file declares its own free joints";
    } else if (floating.outcome == Outcome::Refused && floating.text.find("UrdfOptions::floating_base") != std::string::npos) {
      floating.outcome = Outcome::NotApplicable;
    } else if (floating.outcome == Outcome::Kinematic && floating.root_massless && fixed.outcome == Outcome::Loaded) {
      floating.outcome = Outcome::NotApplicable;
      floating.text = "the root link is massless, so a floating base would move nothing (" + floating.text + ")";
    }
    for (const bool is_floating : {false, true}) {
      const ModeResult& r = is_floating ? floating : fixed;
      ++count[is_floating][static_cast<int>(r.outcome)];
      const char* const word = r.outcome == Outcome::Loaded      ? "loaded   "
                               : r.outcome == Outcome::Kinematic ? "kinematic"
                               : r.outcome == Outcome::NotApplicable ? "n/a      "
                                                                     : "refused  ";
      std::cout << (is_floating ? "floating" : "fixed   ") << "  " << word << " " << file << ": " << r.text << "\n";
      if (args.show_warnings) {
        for (const std::string& w : r.warnings) std::cout << "    warning: " << reason(w, file) << "\n";
      }
    }
  }
  const int n = static_cast<int>(files.size());
  std::cout << "checked " << n << (n == 1 ? " file" : " files");
  for (const int mode : {0, 1}) {
    const int* c = count[mode];
    std::cout << (mode ? "; floating base " : ": fixed base ") << c[0] + c[1] << " loaded (" << c[1]
              << " kinematic only), " << c[2] << " not applicable, " << c[3] << " refused";
  }
  std::cout << "\n";
  return count[0][3] == 0 && count[1][3] == 0 ? 0 : 1;
}

}  // namespace

void addCheck(CLI::App& app, int& status) {
  CLI::App* command = app.add_subcommand(
      "check", "load URDF files (and every *.urdf below folders) with their loop joints, with a fixed and a floating "
               "base, one line per file and base (loaded, kinematic: loaded without dynamics, n/a: a floating base "
               "makes no sense for the file, refused); exit status 0 unless a file is refused in a mode that applies");
  const auto args = std::make_shared<CheckArguments>();  // lives as long as the command's callbacks
  command->add_option("FILE_OR_FOLDER", args->inputs, "URDF files and folders")->required();
  addUrdfOptions(*command, args->options);
  command->add_flag("--warnings", args->show_warnings, "print the loader's warnings under each file");
  command->allow_extras()->callback([command, args, &status] {
    refuseExtras(*command);
    status = check(*args);
  });
}

}  // namespace abdyn_app
