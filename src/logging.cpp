#include "abdyn/logging.hpp"

#include <mutex>

#include <spdlog/sinks/stdout_color_sinks.h>

namespace abdyn {
namespace {

std::shared_ptr<spdlog::logger> makeDefaultLogger() {
  auto sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  auto log = std::make_shared<spdlog::logger>("abdyn", std::move(sink));
  log->set_level(spdlog::level::info);
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
