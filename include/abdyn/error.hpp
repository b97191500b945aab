#pragma once
// Exceptions thrown by abdyn.
//
// abdyn::Error        invalid data: a file, a URDF element, a physical quantity (inertia, rotation)
//                     that cannot describe a real system. The message names the source and what is wrong.
// abdyn::InvalidArgument  a call's argument has the wrong size or (in checked mode) a non-finite value;
//                     the message names the argument and the expectation.

#include <stdexcept>
#include <string>

namespace abdyn {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

class InvalidArgument : public std::invalid_argument {
 public:
  explicit InvalidArgument(const std::string& what) : std::invalid_argument(what) {}
};

}  // namespace abdyn
