#pragma once
// From a URDF document (urdf_document.hpp) to a Model, with every rule of abdyn/io/urdf.hpp: the one
// loader behind loadUrdf (documents read from XML) and buildModel (documents converted from urdfdom's
// model, io/urdfdom.cpp).

#include <string>

#include "abdyn/io/urdf.hpp"
#include "abdyn/model/model.hpp"
#include "io/urdf_document.hpp"

namespace abdyn::internal {

/// The model of `doc`. Throws abdyn::Error "<source>: ..." naming the link or joint at fault; warnings
/// go to abdyn::logger() prefixed by `source`.
Model loadUrdfDocument(const UrdfDocument& doc, const std::string& source, const UrdfOptions& options);

}  // namespace abdyn::internal
