#pragma once
/// @file
/// The library logger. abdyn logs only at load time, on solver convergence reports and on errors,
/// always through this logger (named "abdyn", writing to stderr by default), never to stdout.
///
///   abdyn::logger()->set_level(spdlog::level::off);   // silence abdyn
///   spdlog::set_level(spdlog::level::off);            // or every registered logger, abdyn's included
///   abdyn::setLogger(my_logger);                       // redirect abdyn to your own sinks
/// The default logger is registered with spdlog's registry (spdlog::get("abdyn") returns it); one that
/// setLogger installs is the caller's to register or not.

#include <memory>

#include <spdlog/logger.h>

namespace abdyn {

/// The logger abdyn writes to. Never null.
std::shared_ptr<spdlog::logger> logger();

/// Replaces the library logger; passing nullptr restores the default stderr logger.
void setLogger(std::shared_ptr<spdlog::logger> new_logger);

}  // namespace abdyn
