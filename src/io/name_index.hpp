#pragma once
// NameIndex: name -> position in an array of named things that its owner keeps (a URDF's links or
// joints). The names stay in the owner's array: the index holds one 8-byte slot per name, (hash,
// position), in an open-addressing table (linear probing, at most half full), and compares a name
// against `name_of(position)` only where the hashes agree. Inserting allocates nothing once reserved and
// a lookup touches about one cache line, where a std::unordered_map<std::string, int> allocates a node
// (and copies the name) per insertion and follows a pointer per lookup: on a 10^5-link file the two
// maps of the tree were a tenth of the loading time.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "internal/huge_pages.hpp"

namespace abdyn::internal {

class NameIndex {
 public:
  /// Room for `count` names without growing.
  void reserve(std::size_t count) {
    std::size_t capacity = 16;
    while (capacity < 2 * count) capacity *= 2;
    if (capacity > slots_.size()) rehash(capacity);
  }

  /// The position stored under `name`, or -1. `name_of(position)` gives the name at a position.
  template <class NameOf>
  int find(std::string_view name, const NameOf& name_of) const {
    if (slots_.empty()) return -1;
    const std::uint32_t h = hash(name);
    for (std::size_t s = h & mask(); slots_[s].position >= 0; s = (s + 1) & mask()) {
      if (slots_[s].hash == h && std::string_view(name_of(slots_[s].position)) == name) return slots_[s].position;
    }
    return -1;
  }

  /// Stores `position` under `name` unless the name is there already; returns the position stored
  /// under it before, or -1 if it was new.
  template <class NameOf>
  int insert(std::string_view name, int position, const NameOf& name_of) {
    if (2 * (size_ + 1) > slots_.size()) rehash(slots_.empty() ? 16 : 2 * slots_.size());
    const std::uint32_t h = hash(name);
    std::size_t s = h & mask();
    for (; slots_[s].position >= 0; s = (s + 1) & mask()) {
      if (slots_[s].hash == h && std::string_view(name_of(slots_[s].position)) == name) return slots_[s].position;
    }
    slots_[s] = Slot{h, position};
    ++size_;
    return -1;
  }

 private:
  struct Slot {
    std::uint32_t hash = 0;
    std::int32_t position = -1;  // -1: empty
  };

  static std::uint32_t hash(std::string_view name) {
    const std::size_t h = std::hash<std::string_view>()(name);
    return static_cast<std::uint32_t>(h ^ (h >> 32));
  }
  std::size_t mask() const { return slots_.size() - 1; }

  // The stored hashes place every name again: no name is read.
  void rehash(std::size_t capacity) {
    std::vector<Slot> old;
    old.reserve(capacity);
    adviseHugePages(old);
    old.assign(capacity, Slot{});
    old.swap(slots_);
    for (const Slot& slot : old) {
      if (slot.position < 0) continue;
      std::size_t s = slot.hash & mask();
      while (slots_[s].position >= 0) s = (s + 1) & mask();
      slots_[s] = slot;
    }
  }

  std::vector<Slot> slots_;  // a power of two in size
  std::size_t size_ = 0;
};

}  // namespace abdyn::internal
