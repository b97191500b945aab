#pragma once

#include <cstdint>
#include <cstring>

#include <Eigen/Core>

namespace abdyn::internal {

/// FNV-1a over 64-bit words, byte by byte: the Model's structure and parameter keys. Doubles are mixed by
/// their bit pattern, so -0.0 and 0.0 differ (a key may differ for models that compute alike, never the
/// reverse short of a hash collision).
class Fnv1a {
 public:
  void mix(std::int64_t x) {
    for (int b = 0; b < 8; ++b) {
      key_ ^= static_cast<std::uint64_t>(x >> (8 * b)) & 0xffu;
      key_ *= 1099511628211ull;
    }
  }
  void mix(double x) {
    std::int64_t bits = 0;
    std::memcpy(&bits, &x, sizeof bits);
    mix(bits);
  }
  template <class Matrix>
  void mixAll(const Matrix& m) {
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
      for (Eigen::Index c = 0; c < m.cols(); ++c) mix(static_cast<double>(m(r, c)));
    }
  }
  std::uint64_t key() const { return key_; }

 private:
  std::uint64_t key_ = 14695981039346656037ull;
};

}  // namespace abdyn::internal
