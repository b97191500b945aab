#pragma once
// Finding a model given on the command line by name: `abdyn simulate double_pendulum`.

#include <string>

/// The path of the model the argument names: the argument itself when it is an existing file or contains
/// a '/', else NAME or NAME.urdf in the installed models (<prefix>/share/abdyn/models, found from the
/// program's own location), then in the source tree the program was built from. When nothing matches, the
/// argument is returned unchanged and the loader reports it missing.
std::string resolveModelPath(const std::string& argument);
