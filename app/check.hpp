#pragma once
// `abdyn check` and the URDF-loading options shared by every command of the abdyn program.

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include "abdyn/io/urdf.hpp"

namespace abdyn_app {

/// A mistake in the command line: the program prints it with the usage text and exits with status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The number `text` spells in full, if it is one and finite (the command-line options' numbers).
std::optional<double> parseFinite(const std::string& text);

/// Usage lines of the URDF-loading options (parseUrdfOption).
extern const char* const kUrdfOptionsUsage;

/// If `arg` is a URDF-loading option (--strict, --balance-inertia, --bound-mass M, --bound-inertia I,
/// --accept-invalid-inertia), sets it in `options`, taking its value from `value()`, and returns true.
bool parseUrdfOption(const std::string& arg, const std::function<std::string()>& value, abdyn::UrdfOptions& options);

/// abdyn check FILE_OR_FOLDER... [options]: loads every URDF fixed and floating, one line per file and
/// mode, then a summary. Returns 0 if every file loaded both ways, 1 otherwise.
int check(int argc, char** argv);

}  // namespace abdyn_app
