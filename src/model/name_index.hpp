#pragma once
// A name index: name -> position in an array of named things that its owner keeps (a URDF's links and
// joints, a Model's frames and joints). The names stay in the owner's array: the index is a table of
// 8-byte slots, each (hash << 32) | (position + 1) and 0 where empty, with open addressing (linear
// probing, at most half full), and it compares a name against `name_of(position)` only where the hashes
// agree. Inserting allocates nothing once reserved and a lookup touches about one cache line, where a
// std::unordered_map<std::string, int> allocates a node (and copies the name) per insertion and follows a
// pointer per lookup: on a 10^5-link URDF the loader's maps were a tenth of the loading time, and the
// Model's three a sixth.
//
// The table is a plain std::vector<std::uint64_t>, so that Model (a public header) can hold one without
// this header. The index does not count its names: the owner passes how many it has stored (the length
// of its array, as a rule) when it inserts.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "model/huge_pages.hpp"

namespace abdyn::internal {

using NameSlots = std::vector<std::uint64_t>;

namespace name_index_detail {

inline std::uint64_t hash(std::string_view name) {
  const std::size_t h = std::hash<std::string_view>()(name);
  return static_cast<std::uint32_t>(h ^ (h >> 32));
}

// The stored hashes place every name again: no name is read.
inline void rehash(NameSlots& slots, std::size_t capacity) {
  NameSlots old;
  old.reserve(capacity);
  adviseHugePages(old);
  old.assign(capacity, 0);
  old.swap(slots);
  const std::size_t mask = capacity - 1;
  for (const std::uint64_t slot : old) {
    if (slot == 0) continue;
    std::size_t s = (slot >> 32) & mask;
    while (slots[s] != 0) s = (s + 1) & mask;
    slots[s] = slot;
  }
}

}  // namespace name_index_detail

/// Room for `count` names without growing.
inline void reserveNames(NameSlots& slots, std::size_t count) {
  std::size_t capacity = 16;
  while (capacity < 2 * count) capacity *= 2;
  if (capacity > slots.size()) name_index_detail::rehash(slots, capacity);
}

/// The position stored under `name`, or -1. `name_of(position)` gives the name at a position.
template <class NameOf>
int findName(const NameSlots& slots, std::string_view name, const NameOf& name_of) {
  if (slots.empty()) return -1;
  const std::uint64_t h = name_index_detail::hash(name);
  const std::size_t mask = slots.size() - 1;
  for (std::size_t s = h & mask; slots[s] != 0; s = (s + 1) & mask) {
    const int position = static_cast<int>(static_cast<std::uint32_t>(slots[s]) - 1);
    if ((slots[s] >> 32) == h && std::string_view(name_of(position)) == name) return position;
  }
  return -1;
}

/// Stores `position` under `name` in an index that holds `stored` names, unless the name is there
/// already; returns the position stored under it before, or -1 if it was new.
template <class NameOf>
int insertName(NameSlots& slots, std::size_t stored, std::string_view name, int position, const NameOf& name_of) {
  if (2 * (stored + 1) > slots.size()) name_index_detail::rehash(slots, slots.empty() ? 16 : 2 * slots.size());
  const std::uint64_t h = name_index_detail::hash(name);
  const std::size_t mask = slots.size() - 1;
  std::size_t s = h & mask;
  for (; slots[s] != 0; s = (s + 1) & mask) {
    const int existing = static_cast<int>(static_cast<std::uint32_t>(slots[s]) - 1);
    if ((slots[s] >> 32) == h && std::string_view(name_of(existing)) == name) return existing;
  }
  slots[s] = (h << 32) | (static_cast<std::uint64_t>(static_cast<std::uint32_t>(position)) + 1);
  return -1;
}

/// The usual `name_of` for an owner whose items have a `name` member (a Model's frames and joints):
/// item k's name.
template <class T>
auto namesOf(const std::vector<T>& items) {
  return [&items](int k) -> const std::string& { return items[k].name; };
}

}  // namespace abdyn::internal
