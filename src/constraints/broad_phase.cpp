#include "abdyn/constraints/broad_phase.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "abdyn/error.hpp"
#include "constraints/shape_box.hpp"
#include "internal/checks.hpp"

namespace abdyn {
namespace {

// An unordered pair of indices (bodies or geometries) as one sortable key.
std::uint64_t pairKey(int a, int b) {
  const auto lo = static_cast<std::uint64_t>(std::min(a, b)), hi = static_cast<std::uint64_t>(std::max(a, b));
  return (lo << 32) | hi;
}

}  // namespace

BroadPhase::BroadPhase(const Model& model) { prepare(model, GroundContactSettings()); }

void BroadPhase::prepare(const Model& model, const GroundContactSettings& settings) {
  const auto& geometries = model.geometries();
  model_key_ = model.structureKey();
  ngeometries_ = geometries.size();
  geometry_ = settings.geometry;
  world_shapes_ = settings.world_shapes;
  centre_local_.assign(geometries.size(), Vector3::Zero());
  half_local_.assign(geometries.size(), Vector3::Zero());
  lower_.assign(geometries.size(), Vector3::Zero());
  upper_.assign(geometries.size(), Vector3::Zero());
  order_.clear();
  for (int i = 0; i < static_cast<int>(geometries.size()); ++i) {
    const Geometry& g = geometries[static_cast<std::size_t>(i)];
    if (!isContactShape(g, settings)) continue;
    order_.push_back(i);
    if (g.shape == ShapeType::Mesh) {
      internal::hullBox(g.mesh->hull, centre_local_[static_cast<std::size_t>(i)], half_local_[static_cast<std::size_t>(i)]);
    }
  }
  const std::vector<std::pair<int, int>> excluded = excludedBodyPairs(model, settings);
  excluded_.clear();
  for (const auto& [a, b] : excluded) excluded_.push_back(pairKey(a, b));
  excluded_names_ = settings.excluded_pairs;
  excluded_indices_ = settings.excluded_body_pairs;
  excluded_geometries_.clear();
  for (const auto& [a, b] : settings.excluded_geometry_pairs) {
    for (int g : {a, b}) {
      if (g < 0 || g >= static_cast<int>(geometries.size())) {
        throw InvalidArgument("abdyn::GroundContactSettings::excluded_geometry_pairs: geometry " + std::to_string(g) +
                              " is out of range for model '" + model.name() + "' (" + std::to_string(geometries.size()) +
                              " geometries)");
      }
    }
    excluded_geometries_.push_back(pairKey(a, b));
  }
  std::sort(excluded_geometries_.begin(), excluded_geometries_.end());
  excluded_geometry_indices_ = settings.excluded_geometry_pairs;
  prepared_ = true;
  const std::size_t n = order_.size();
  pairs_.reserve(n * (n > 0 ? n - 1 : 0) / 2);
}

// A parent and its child overlap at their joint, unless the joint is free (a floating base on the world).
bool BroadPhase::jointedNeighbours(const Model& model, int body_a, int body_b) {
  const auto held = [&](int child, int parent) {
    return child != 0 && model.parent(child) == parent && model.joint(child).type != JointType::Floating;
  };
  return held(body_a, body_b) || held(body_b, body_a);
}

bool BroadPhase::excluded(int body_a, int body_b) const {
  return !excluded_.empty() && std::binary_search(excluded_.begin(), excluded_.end(), pairKey(body_a, body_b));
}

const std::vector<GeometryPair>& BroadPhase::pairs(const Model& model, const Data& data, const GroundContactSettings& settings) {
  internal::checkData(model, data, "abdyn::BroadPhase::pairs");
  if (!prepared_ || model_key_ != model.structureKey() || ngeometries_ != model.geometries().size() ||
      geometry_ != settings.geometry || world_shapes_ != settings.world_shapes || excluded_names_ != settings.excluded_pairs ||
      excluded_indices_ != settings.excluded_body_pairs || excluded_geometry_indices_ != settings.excluded_geometry_pairs) {
    prepare(model, settings);
  }
  const auto& geometries = model.geometries();
  const Vector3 grow = Vector3::Constant(0.5 * std::max(settings.margin, 0.0));
  for (int i : order_) {
    const Geometry& g = geometries[static_cast<std::size_t>(i)];
    const Plx X_shape_world = g.X_geometry_body * data.X_body_world[static_cast<std::size_t>(g.body)];
    const Matrix3 R = X_shape_world.E().transpose();  // shape axes in world coordinates
    const Vector3 centre = X_shape_world.r() + R * centre_local_[static_cast<std::size_t>(i)];
    const Vector3 half = internal::frameHalfExtents(g, R, half_local_[static_cast<std::size_t>(i)]) + grow;
    lower_[static_cast<std::size_t>(i)] = centre - half;
    upper_[static_cast<std::size_t>(i)] = centre + half;
  }
  // Insertion sort by the lower x bound, from the previous call's order.
  for (std::size_t k = 1; k < order_.size(); ++k) {
    const int shape = order_[k];
    const double x = lower_[static_cast<std::size_t>(shape)].x();
    std::size_t m = k;
    for (; m > 0 && lower_[static_cast<std::size_t>(order_[m - 1])].x() > x; --m) order_[m] = order_[m - 1];
    order_[m] = shape;
  }
  pairs_.clear();
  for (std::size_t k = 0; k < order_.size(); ++k) {
    const int a = order_[k];
    const Geometry& ga = geometries[static_cast<std::size_t>(a)];
    const Vector3& lo_a = lower_[static_cast<std::size_t>(a)];
    const Vector3& hi_a = upper_[static_cast<std::size_t>(a)];
    for (std::size_t m = k + 1; m < order_.size(); ++m) {
      const int b = order_[m];
      const Vector3& lo_b = lower_[static_cast<std::size_t>(b)];
      if (lo_b.x() > hi_a.x()) break;  // every later box starts further along x
      const Vector3& hi_b = upper_[static_cast<std::size_t>(b)];
      if (lo_b.y() > hi_a.y() || lo_a.y() > hi_b.y() || lo_b.z() > hi_a.z() || lo_a.z() > hi_b.z()) continue;
      const Geometry& gb = geometries[static_cast<std::size_t>(b)];
      if (ga.body == gb.body) continue;
      if (settings.exclude_parent_child && jointedNeighbours(model, ga.body, gb.body)) continue;
      if ((ga.contype & gb.conaffinity) == 0 && (gb.contype & ga.conaffinity) == 0) continue;
      if (excluded(ga.body, gb.body)) continue;
      if (!excluded_geometries_.empty() &&
          std::binary_search(excluded_geometries_.begin(), excluded_geometries_.end(), pairKey(a, b))) {
        continue;
      }
      pairs_.push_back(GeometryPair{std::min(a, b), std::max(a, b)});
    }
  }
  std::sort(pairs_.begin(), pairs_.end(),
            [](const GeometryPair& x, const GeometryPair& y) { return x.first != y.first ? x.first < y.first : x.second < y.second; });
  return pairs_;
}

}  // namespace abdyn
