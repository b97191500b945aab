#pragma once
// The frame of the examples that take one file: the usage line without exactly one argument, and any
// exception (abdyn::Error says which file or argument is wrong and why) printed, with exit status 1.

#include <exception>
#include <iostream>

namespace example {

/// Returns `body(path)` for the program's one argument `path`; prints "usage: " `usage` and returns 2
/// without exactly one argument, prints an exception's message and returns 1.
template <class Body>
int runWithOneFile(int argc, char** argv, const char* usage, Body body) {
  if (argc != 2) {
    std::cerr << "usage: " << usage << "\n";
    return 2;
  }
  try {
    return body(argv[1]);
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
}

}  // namespace example
