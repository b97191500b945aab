#pragma once
// Captures abdyn's log (abdyn::logger()) in a string for the lifetime of the object, for tests of the
// warnings the library gives.

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "abdyn/logging.hpp"

namespace abdyn::testing {

struct CapturedLog {
  std::ostringstream text;
  CapturedLog() {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(text);
    auto log = std::make_shared<spdlog::logger>("captured", sink);
    log->set_level(spdlog::level::info);
    setLogger(log);
  }
  ~CapturedLog() { setLogger(nullptr); }
  CapturedLog(const CapturedLog&) = delete;
  CapturedLog& operator=(const CapturedLog&) = delete;

  /// The number of messages logged at level warning.
  int warnings() const {
    const std::string s = text.str();
    int n = 0;
    for (std::size_t at = s.find("[warning]"); at != std::string::npos; at = s.find("[warning]", at + 1)) ++n;
    return n;
  }
  bool has(const std::string& fragment) const { return text.str().find(fragment) != std::string::npos; }
  /// Checks that exactly `count` warnings were logged and that the log holds every fragment; a failure
  /// shows the whole log.
  void checkWarnings(int count, const std::vector<std::string>& fragments) const {
    BOOST_TEST(warnings() == count, text.str());
    for (const std::string& f : fragments) BOOST_TEST(has(f), "'" << f << "' not in: " << text.str());
  }
};

}  // namespace abdyn::testing
