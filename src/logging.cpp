#include "abdyn/logging.hpp"

#include <mutex>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace abdyn {
namespace {

// The default logger is registered with spdlog under the name "abdyn", so that spdlog's global controls
// (spdlog::set_level, spdlog::get("abdyn"), spdlog::drop_all) reach it like any other logger; initialising
// it through the registry also gives it the global level already set. A logger of that name registered
// by the program before abdyn's first message is used as it is.
std::shared_ptr<spdlog::logger> makeDefaultLogger() {
  if (auto existing = spdlog::get("abdyn")) return existing;
  auto sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  auto log = std::make_shared<spdlog::logger>("abdyn", std::move(sink));
  spdlog::initialize_logger(log);
  return log;
}

std::mutex& loggerMutex() {
  static std::mutex m;
  return m;
}

std::shared_ptr<spdlog::logger>& loggerSlot() {
  static std::shared_ptr<spdlog::logger> slot = makeDefaultLogger();
  return slot;
}

}  // namespace

std::shared_ptr<spdlog::logger> logger() {
  std::lock_guard<std::mutex> lock(loggerMutex());
  return loggerSlot();
}

void setLogger(std::shared_ptr<spdlog::logger> new_logger) {
  std::lock_guard<std::mutex> lock(loggerMutex());
  loggerSlot() = new_logger ? std::move(new_logger) : makeDefaultLogger();
}

}  // namespace abdyn
