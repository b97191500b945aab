// abdyn check: what a user runs on a robot collection before using it.

#include "check.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <spdlog/sinks/base_sink.h>

#include "abdyn/error.hpp"
#include "abdyn/logging.hpp"

namespace abdyn_app {

std::optional<double> parseFinite(const std::string& text) {
  std::size_t used = 0;
  double x = 0.0;
  try {
    x = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !std::isfinite(x)) return std::nullopt;
  return x;
}

const char* const kUrdfOptionsUsage =
    "  --strict       refuse what the loader otherwise repairs or ignores with a warning (inertias that\n"
    "                 are indefinite or break the triangle inequality, negative limits, dangling mimics,\n"
    "                 nameless materials, unreadable visuals or collisions)\n"
    "  --balance-inertia\n"
    "                 give links that break the triangle inequality the isotropic inertia of the same trace\n"
    "  --bound-mass M, --bound-inertia I\n"
    "                 raise each moving body's mass to at least M kg and its principal moments to at least\n"
    "                 I kg m^2 (loads files whose massless links make the mass matrix singular)\n"
    "  --accept-invalid-inertia\n"
    "                 load bodies whose inertia is indefinite (with a warning) instead of refusing the file\n";

namespace {

namespace fs = std::filesystem;

double parseNonNegative(const std::string& option, const std::string& text) {
  const std::optional<double> x = parseFinite(text);
  if (!x || *x < 0.0) throw UsageError(option + " expects a finite number >= 0, got '" + text + "'");
  return *x;
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

bool parseUrdfOption(const std::string& arg, const std::function<std::string()>& value, abdyn::UrdfOptions& options) {
  if (arg == "--strict") {
    options.strict = true;
  } else if (arg == "--balance-inertia") {
    options.balance_inertia = true;
  } else if (arg == "--bound-mass") {
    options.bound_mass = parseNonNegative(arg, value());
  } else if (arg == "--bound-inertia") {
    options.bound_inertia = parseNonNegative(arg, value());
  } else if (arg == "--accept-invalid-inertia") {
    options.accept_invalid_inertia = true;
  } else {
    return false;
  }
  return true;
}

int check(int argc, char** argv) {
  abdyn::UrdfOptions options;
  bool show_warnings = false;
  std::vector<std::string> inputs;
  for (int k = 2; k < argc; ++k) {
    const std::string a = argv[k];
    const auto value = [&]() -> std::string {
      if (k + 1 >= argc) throw UsageError(a + " needs a value");
      return argv[++k];
    };
    if (a == "--warnings") {
      show_warnings = true;
    } else if (parseUrdfOption(a, value, options)) {
    } else if (!a.empty() && a[0] == '-') {
      throw UsageError("unknown option '" + a + "' for 'check' (it loads every file both fixed and floating)");
    } else {
      inputs.push_back(a);
    }
  }
  if (inputs.empty()) throw UsageError("missing FILE_OR_FOLDER");
  const std::vector<std::string> files = collect(inputs);

  const auto sink = std::make_shared<WarningSink>();
  const LoggerRestore restore;
  auto log = std::make_shared<spdlog::logger>("abdyn-check", sink);
  log->set_level(spdlog::level::warn);
  abdyn::setLogger(log);

  int loaded[2] = {0, 0};
  for (const std::string& file : files) {
    for (const bool floating : {false, true}) {
      options.floating_base = floating;
      const char* const mode = floating ? "floating" : "fixed   ";
      try {
        const abdyn::Model model = abdyn::loadUrdf(file, options);
        const std::vector<std::string> warnings = sink->take();
        ++loaded[floating];
        std::cout << mode << "  loaded   " << file << ": nq " << model.nq() << ", nv " << model.nv() << ", "
                  << model.nbodies() - 1 << " bodies, mass " << model.totalMass() << " kg, " << warnings.size()
                  << (warnings.size() == 1 ? " warning" : " warnings") << "\n";
        if (show_warnings) {
          for (const std::string& w : warnings) std::cout << "    warning: " << reason(w, file) << "\n";
        }
      } catch (const abdyn::Error& e) {
        sink->take();
        std::cout << mode << "  refused  " << file << ": " << reason(e.what(), file) << "\n";
      }
    }
  }
  const int n = static_cast<int>(files.size());
  std::cout << "checked " << n << (n == 1 ? " file" : " files") << ": fixed base " << loaded[0] << " loaded, "
            << n - loaded[0] << " refused; floating base " << loaded[1] << " loaded, " << n - loaded[1] << " refused\n";
  return loaded[0] == n && loaded[1] == n ? 0 : 1;
}

}  // namespace abdyn_app
