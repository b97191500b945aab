#pragma once
/// @file
/// Exceptions thrown by abdyn.
///
/// abdyn::Error        everything abdyn rejects: a file, a URDF element, a physical quantity (inertia,
///                     rotation) that cannot describe a real system, a diverged simulation. The message
///                     names the source and what is wrong. `catch (const abdyn::Error&)` catches all of it.
/// abdyn::InvalidArgument  the kind of Error where a call's argument has the wrong size, belongs to another
///                     model or (in checked mode) has a non-finite value; the message names the argument
///                     and the expectation.

#include <stdexcept>
#include <string>

namespace abdyn {

/// Everything abdyn rejects (see the file comment); what() names the source and what is wrong.
class Error : public std::runtime_error {
 public:
  /// An error with the message `what`.
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

/// An Error in a call's argument: wrong size, another model's Data, or (checked mode) a non-finite value.
class InvalidArgument : public Error {
 public:
  /// An error with the message `what`.
  explicit InvalidArgument(const std::string& what) : Error(what) {}
};

}  // namespace abdyn
