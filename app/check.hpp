#pragma once
// `abdyn check` and the URDF-loading options shared by every command of the abdyn program.

#include <optional>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

#include "abdyn/io/urdf.hpp"

namespace abdyn_app {

/// A mistake in the command line: the program prints it and exits with status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The number `text` spells in full, if it is one and finite; else a UsageError naming `option`.
double parseFinite(const std::string& option, const std::string& text);

/// Adds to `command` an option whose value `parse(name, text)` turns into `x` (throwing a UsageError that
/// names the option when it cannot), shown as `name METAVAR` in the command's help; sets `*given` (if not
/// null) when the option is given.
template <typename T>
CLI::Option* addParsed(CLI::App& command, const std::string& name, const std::string& metavar, T& x,
                       T (*parse)(const std::string&, const std::string&), const std::string& help,
                       bool* given = nullptr) {
  const auto set = [&x, name, parse, given](const std::string& text) {
    x = parse(name, text);
    if (given) *given = true;
  };
  return command.add_option_function<std::string>(name, set, help)->type_name(metavar);
}

/// The URDF-loading options of every command: --strict, --balance-inertia, --bound-mass M,
/// --bound-inertia I, --accept-invalid-inertia, into `options`.
void addUrdfOptions(CLI::App& command, abdyn::UrdfOptions& options);

/// Refuses what CLI11 left over in `command`: an unknown option, or an argument past the positionals.
void refuseExtras(const CLI::App& command);

/// `abdyn check FILE_OR_FOLDER... [URDF options] [--warnings]`: loads every URDF fixed and floating, one
/// line per file and mode, then a summary; `status` becomes 0 if every file loaded both ways, else 1.
void addCheck(CLI::App& app, int& status);

}  // namespace abdyn_app
