#pragma once
/// @file
/// The broad phase of body contacts: the pairs of collision shapes that may touch, by sweep and prune on
/// world-aligned boxes, before the narrow phase (convex_distance.hpp, row_contacts.hpp) looks at them.
///
/// Each collided shape (row_contacts.hpp's rules: those on moving bodies, and the world's with
/// GroundContactSettings::world_shapes) gets a box aligned with the world axes that
/// holds it: exact for spheres, boxes, cylinders, capsules and ellipsoids, and for a mesh the world box of its
/// hull's box in shape coordinates. Each box is grown by half the contact margin on every side, so shapes whose
/// boxes do not overlap are at least the margin apart and would make no contact row. The boxes are kept sorted
/// by their lower x bound (insertion sort from the previous call's order: bodies move little between steps,
/// so the sort costs about one pass); the sweep pairs each box with the boxes after it that start before it
/// ends along x, and keeps the pairs that overlap along y and z too. Pairs on one body (the world's shapes among
/// themselves), on a parent and its child jointed by anything but a free joint (unless
/// GroundContactSettings::exclude_parent_child is off), the excluded pairs (GroundContactSettings::excluded_pairs,
/// excluded_body_pairs and excluded_geometry_pairs) and the pairs whose filter bits do not match
/// (Geometry::contype and conaffinity, as MuJoCo filters them) are dropped.
/// The pairs come out in increasing order of their geometry indices, so the rows do not depend on the order
/// the sweep found them in.

#include <cstdint>
#include <utility>
#include <vector>

#include "abdyn/model/data.hpp"
#include "abdyn/constraints/narrow_phase_workspace.hpp"
#include "abdyn/constraints/row_contacts.hpp"

namespace abdyn {

/// Two collision shapes that may touch: indices into Model::geometries(), first < second.
struct GeometryPair {
  int first = 0;   ///< the smaller geometry index
  int second = 0;  ///< the larger geometry index
};

/// The broad phase's workspace: the shapes' boxes, their sorted order and the pairs found, and beside them the
/// narrow phase's buffers (narrowPhase()) that addBodyContactRows fills for those pairs. Built once per model (a
/// Simulator owns one); once sized, finding the pairs allocates nothing, and neither does the narrow phase once
/// its buffers have grown to the largest faces and candidate sets met.
class BroadPhase {
 public:
  /// An empty workspace; the first call of pairs() sizes it.
  BroadPhase() = default;
  /// Sizes the workspace for `model`: the shapes' boxes, and room for every pair of its collision shapes.
  explicit BroadPhase(const Model& model);

  /// The pairs of collided shapes on different bodies, neither parent and child nor excluded, with matching
  /// filter bits, whose boxes
  /// (grown by settings.margin / 2) overlap, sorted by (first, second). Needs data.X_body_world (forward
  /// kinematics). Throws as excludedBodyPairs does for bad exclusions; resolves them again only when they
  /// change.
  const std::vector<GeometryPair>& pairs(const Model& model, const Data& data, const GroundContactSettings& settings);

  /// The narrow phase's buffers, kept with the pairs they serve (narrow_phase_workspace.hpp).
  NarrowPhaseWorkspace& narrowPhase() { return narrow_phase_; }

 private:
  /// Rebuilds the shape list, their boxes in shape coordinates and the exclusions for these settings.
  void prepare(const Model& model, const GroundContactSettings& settings);
  bool excluded(int body_a, int body_b) const;
  static bool jointedNeighbours(const Model& model, int body_a, int body_b);

  std::uint64_t model_key_ = 0;          ///< Model::structureKey of the model prepared for
  std::size_t ngeometries_ = 0;          ///< and its number of geometries
  bool prepared_ = false;                ///< whether the lists below belong to that model
  ContactGeometry geometry_ = ContactGeometry::StaticMeshes;  ///< the setting the shape list was made for
  bool world_shapes_ = false;  ///< and whether it holds the world's shapes
  std::vector<std::pair<std::string, std::string>> excluded_names_;  ///< settings.excluded_pairs resolved
  std::vector<std::pair<int, int>> excluded_indices_;                ///< settings.excluded_body_pairs resolved
  std::vector<std::uint64_t> excluded_;  ///< excluded body pairs, (smaller << 32) | larger, sorted
  std::vector<std::pair<int, int>> excluded_geometry_indices_;  ///< settings.excluded_geometry_pairs resolved
  std::vector<std::uint64_t> excluded_geometries_;  ///< excluded geometry pairs, (smaller << 32) | larger, sorted
  std::vector<int> order_;               ///< the collided shapes (geometry indices), by lower x bound
  std::vector<Vector3> centre_local_;    ///< per geometry: its box's centre, shape coordinates
  std::vector<Vector3> half_local_;      ///< per geometry: its box's half extents, shape coordinates (meshes)
  std::vector<Vector3> lower_, upper_;   ///< per geometry: its world box, grown by margin / 2
  std::vector<GeometryPair> pairs_;         ///< the pairs of the last call
  NarrowPhaseWorkspace narrow_phase_;       ///< the narrow phase's buffers
};

}  // namespace abdyn
