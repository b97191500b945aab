// Coordinate conversions between abdyn and the peers (see peer.hpp).

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "peer.hpp"

namespace abdyn_bench {

namespace {

using Vec3 = std::array<double, 3>;

Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

// R x (transpose: R^T x) with R row-major.
Vec3 rotate(const std::array<double, 9>& R, const Vec3& x, bool transpose) {
  Vec3 y{};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) y[i] += (transpose ? R[3 * j + i] : R[3 * i + j]) * x[j];
  }
  return y;
}

Vec3 slice3(const std::vector<double>& x, int at) { return {x[at], x[at + 1], x[at + 2]}; }

}  // namespace

Layout::Layout(const Problem& problem)
    : nq_(problem.nq), nv_(problem.nv), q_map_(problem.nq, -1), v_map_(problem.nv, -1) {}

void Layout::mapJoint(const JointSlice& joint, int peer_idx_q, int peer_idx_v) {
  q_map_[joint.idx_q] = peer_idx_q;
  v_map_[joint.idx_v] = peer_idx_v;
}

void Layout::mapFloating(const JointSlice& joint, const std::array<int, 7>& q_slots, const std::array<int, 3>& linear_slots,
                         const std::array<int, 3>& angular_slots, bool world_linear) {
  float_q_ = joint.idx_q;
  float_v_ = joint.idx_v;
  world_linear_ = world_linear;
  for (int k = 0; k < 7; ++k) q_map_[joint.idx_q + k] = q_slots[k];
  for (int k = 0; k < 3; ++k) {
    v_map_[joint.idx_v + k] = angular_slots[k];
    v_map_[joint.idx_v + 3 + k] = linear_slots[k];
  }
}

std::string Layout::check() const {
  const auto distinct = [](std::vector<int> map, int n) {
    std::sort(map.begin(), map.end());
    return map.empty() || (map.front() >= 0 && map.back() < n && std::adjacent_find(map.begin(), map.end()) == map.end());
  };
  if (!distinct(q_map_, nq_)) return "the joint coordinates do not map one to one onto the peer's q";
  if (!distinct(v_map_, nv_)) return "the joint coordinates do not map one to one onto the peer's v";
  return {};
}

std::array<double, 9> Layout::rootRotation(const std::vector<double>& q) const {
  const double w = q[float_q_ + 3], x = q[float_q_ + 4], y = q[float_q_ + 5], z = q[float_q_ + 6];
  return {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
          2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
          2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
}

std::vector<double> Layout::configuration(const std::vector<double>& q) const {
  std::vector<double> out(nq_);
  for (int i = 0; i < nq_; ++i) out[q_map_[i]] = q[i];
  return out;
}

std::vector<double> Layout::velocity(const std::vector<double>& q, const std::vector<double>& v) const {
  return force(q, v);  // the same map: the linear part rotated into the world
}

std::vector<double> Layout::acceleration(const std::vector<double>& q, const std::vector<double>& v,
                                         const std::vector<double>& qdd) const {
  std::vector<double> out(nv_);
  for (int k = 0; k < nv_; ++k) out[v_map_[k]] = qdd[k];
  if (float_v_ >= 0 && world_linear_) {
    const Vec3 bias = cross(slice3(v, float_v_), slice3(v, float_v_ + 3));
    const Vec3 a = slice3(qdd, float_v_ + 3);
    const Vec3 world = rotate(rootRotation(q), {a[0] + bias[0], a[1] + bias[1], a[2] + bias[2]}, false);
    for (int k = 0; k < 3; ++k) out[v_map_[float_v_ + 3 + k]] = world[k];
  }
  return out;
}

std::vector<double> Layout::force(const std::vector<double>& q, const std::vector<double>& tau) const {
  std::vector<double> out(nv_);
  for (int k = 0; k < nv_; ++k) out[v_map_[k]] = tau[k];
  if (float_v_ >= 0 && world_linear_) {
    const Vec3 world = rotate(rootRotation(q), slice3(tau, float_v_ + 3), false);
    for (int k = 0; k < 3; ++k) out[v_map_[float_v_ + 3 + k]] = world[k];
  }
  return out;
}

std::vector<double> Layout::configurationFromPeer(const std::vector<double>& peer_q) const {
  std::vector<double> out(nq_);
  for (int i = 0; i < nq_; ++i) out[i] = peer_q[q_map_[i]];
  return out;
}

std::vector<double> Layout::velocityFromPeer(const std::vector<double>& q, const std::vector<double>& peer_v) const {
  return forceFromPeer(q, peer_v);  // the same map: the linear part rotated back into the root body
}

std::vector<double> Layout::accelerationFromPeer(const std::vector<double>& q, const std::vector<double>& v,
                                                 const std::vector<double>& peer_qdd) const {
  std::vector<double> out(nv_);
  for (int k = 0; k < nv_; ++k) out[k] = peer_qdd[v_map_[k]];
  if (float_v_ >= 0 && world_linear_) {
    const Vec3 bias = cross(slice3(v, float_v_), slice3(v, float_v_ + 3));
    const Vec3 body = rotate(rootRotation(q), slice3(out, float_v_ + 3), true);
    for (int k = 0; k < 3; ++k) out[float_v_ + 3 + k] = body[k] - bias[k];
  }
  return out;
}

std::vector<double> Layout::forceFromPeer(const std::vector<double>& q, const std::vector<double>& peer_tau) const {
  std::vector<double> out(nv_);
  for (int k = 0; k < nv_; ++k) out[k] = peer_tau[v_map_[k]];
  if (float_v_ >= 0 && world_linear_) {
    const Vec3 body = rotate(rootRotation(q), slice3(out, float_v_ + 3), true);
    for (int k = 0; k < 3; ++k) out[float_v_ + 3 + k] = body[k];
  }
  return out;
}

std::vector<double> Layout::massMatrixFromPeer(const std::vector<double>& q, const std::vector<double>& peer_mass) const {
  const auto n = static_cast<std::size_t>(nv_);
  std::vector<double> out(n * n);
  for (std::size_t c = 0; c < n; ++c) {
    for (std::size_t r = 0; r < n; ++r) out[c * n + r] = peer_mass[v_map_[c] * n + v_map_[r]];
  }
  if (float_v_ >= 0 && world_linear_) {
    // M = T^T M_peer T with T = R on the linear block: R^T on its rows, R on its columns.
    const std::array<double, 9> R = rootRotation(q);
    const auto lin = static_cast<std::size_t>(float_v_ + 3);
    for (std::size_t c = 0; c < n; ++c) {
      const Vec3 rows = rotate(R, {out[c * n + lin], out[c * n + lin + 1], out[c * n + lin + 2]}, true);
      for (std::size_t k = 0; k < 3; ++k) out[c * n + lin + k] = rows[k];
    }
    for (std::size_t r = 0; r < n; ++r) {
      // Row r of the linear columns times R: (x R)_j = sum_i x_i R_ij = (R^T x)_j.
      const Vec3 cols = rotate(R, {out[lin * n + r], out[(lin + 1) * n + r], out[(lin + 2) * n + r]}, true);
      for (std::size_t k = 0; k < 3; ++k) out[(lin + k) * n + r] = cols[k];
    }
  }
  return out;
}

}  // namespace abdyn_bench
