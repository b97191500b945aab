#pragma once
/// @file
/// Named frames attached to bodies: every body's own frame, the links merged into a body through fixed
/// joints (tool flanges, sensor mounts, feet), and frames users add.

#include <string>

#include "abdyn/spatial/plx.hpp"

namespace abdyn {

/// What a named frame stands for.
enum class FrameType {
  Body,   ///< the frame of a body itself (identity placement)
  Fixed,  ///< a link attached through a fixed joint and merged into its body (or into the world)
  User,   ///< added through ModelBuilder::addFrame
};

/// A named frame rigidly attached to a body.
struct Frame {
  std::string name;  ///<unique in the model
  FrameType type = FrameType::Body;  ///<what it stands for
  int body = 0;   ///< the body it is rigidly attached to (0: the world)
  Plx X_frame_body;  ///< maps coordinates of the body into coordinates of this frame
};

}  // namespace abdyn
