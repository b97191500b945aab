#pragma once
/// @file
/// The buffers the narrow phase of body contacts fills on every call (row_contacts.hpp): the corners of two
/// polytope faces clipped against each other in the contact plane, the triangles of a static mesh near a shape,
/// and the candidate points gathered before they are reduced to four. Kept between steps (a BroadPhase holds
/// one, BroadPhase::narrowPhase), the buffers keep their capacity, which grows only when a larger face or more
/// candidates than ever before appear: contact generation then allocates nothing.

#include <vector>

#include "abdyn/spatial/types.hpp"

namespace abdyn {

/// Scratch of the narrow phase: what the vectors hold between two calls means nothing; only their capacity is
/// kept. Empty when built; each call grows what it needs.
struct NarrowPhaseWorkspace {
  std::vector<Vector3> face_a;           ///< corners of the first face clipped (world)
  std::vector<Vector3> face_b;           ///< corners of the second face clipped (world)
  std::vector<Eigen::Vector2d> polygon;  ///< the polygon being clipped, in the contact plane's coordinates
  std::vector<Eigen::Vector2d> next;     ///< that polygon clipped by one more edge
  std::vector<Eigen::Vector2d> clip;     ///< the clipping polygon, in the contact plane's coordinates
  std::vector<Vector3> clipped;          ///< the clipped overlap's points on the first face (world)
  std::vector<double> clipped_gaps;      ///< their gaps, second face minus first along the contact normal
  std::vector<int> triangles;            ///< triangles of a static mesh near the shape (TriangleBvh)
  std::vector<Vector3> candidates;       ///< candidate contact points of a pair (world)
  std::vector<Vector3> normals;          ///< their unit normals (world)
  std::vector<double> gaps;              ///< their gaps along those normals
};

}  // namespace abdyn
