#pragma once
// Runs the abdyn program (ABDYN_APP_PATH, defined by tests/CMakeLists.txt for the tests that run it) as a
// user runs it, its output caught in files of a scratch folder of this process.

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include <boost/test/unit_test.hpp>

namespace abdyn::test {

/// What a run of the program left: its exit status (-1 if it did not exit) and what it wrote.
struct ProgramRun {
  int status = -1;  ///< exit status
  std::string out;  ///< standard output
  std::string err;  ///< standard error
};

/// Whether `text` (a run's output, a file) holds `fragment`.
inline bool contains(const std::string& text, const std::string& fragment) {
  return text.find(fragment) != std::string::npos;
}

/// A file's whole content, byte for byte (empty if it cannot be read).
inline std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// This process's scratch folder in the temporary directory (named after the process, so that the tests
/// of several build trees may run at once), made on first use.
inline const std::filesystem::path& scratch() {
  static const std::filesystem::path dir = [] {
    const std::filesystem::path d = std::filesystem::temp_directory_path() / ("abdyn_program_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

/// Removes the scratch folder when the test module ends: BOOST_TEST_GLOBAL_FIXTURE(RemoveScratch).
struct RemoveScratch {
  ~RemoveScratch() {
    std::error_code ignored;
    std::filesystem::remove_all(scratch(), ignored);
  }
};

/// Runs the program with the given arguments (each single-quoted for the shell) and no input.
inline ProgramRun runProgram(const std::vector<std::string>& args) {
  std::string command = std::string("'") + ABDYN_APP_PATH + "'";
  for (const std::string& a : args) command += " '" + a + "'";
  command += " > '" + (scratch() / "out").string() + "' 2> '" + (scratch() / "err").string() + "' < /dev/null";
  ProgramRun r;
  const int raw = std::system(command.c_str());
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = readFile(scratch() / "out");
  r.err = readFile(scratch() / "err");
  return r;
}

/// A run of the program that must fail.
struct Refusal {
  std::vector<std::string> args;  ///< the arguments
  int status;                     ///< the exit status expected
  std::string message;            ///< a fragment of standard error expected
};

/// Runs the program on `refusal.args`, checks its exit status and that standard error holds the message;
/// returns the run.
inline ProgramRun checkRefusal(const Refusal& refusal) {
  const ProgramRun r = runProgram(refusal.args);
  std::string shown;
  for (const std::string& a : refusal.args) shown += a + " ";
  BOOST_TEST(r.status == refusal.status, shown << ": exit " << r.status);
  BOOST_TEST(contains(r.err, refusal.message), shown << ": stderr was\n" << r.err);
  return r;
}

}  // namespace abdyn::test
