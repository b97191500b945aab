#pragma once
// Transparent huge pages for the large arrays that loading a model and building its Data fill. A
// 10^5-body model, the URDF document it is read from and its Data are a few hundred MB, each array
// written once right after it is allocated; with 4 KiB pages every 4 KiB written first costs a page
// fault, and on the (virtualised) machine of docs/performance.md the faults were about 40% of loading a
// 10^5-link URDF chain and half of building its Data. Advising the kernel that a fresh, untouched buffer
// may be backed by 2 MiB pages (Linux madvise(MADV_HUGEPAGE), honoured when
// /sys/kernel/mm/transparent_hugepage/enabled is "always" or "madvise", as on that machine) takes 512
// times fewer faults. Only the whole 2 MiB blocks inside buffers of at least 4 MiB are advised, so small
// models are untouched; where the kernel declines, or on other systems, nothing changes.

#include <cstddef>
#include <cstdint>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace abdyn::internal {

inline void adviseHugePages(const void* data, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  if (bytes < 2 * kHuge) return;
  const std::uintptr_t begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (begin + kHuge - 1) & ~(kHuge - 1);
  const std::uintptr_t last = (begin + bytes) & ~(kHuge - 1);
  // A hint: its failure changes nothing but the speed.
  if (last > first) static_cast<void>(madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE));
#else
  static_cast<void>(data);
  static_cast<void>(bytes);
#endif
}

/// The whole capacity of `v` (call it after reserve and before the elements are written).
template <class T, class Allocator>
void adviseHugePages(const std::vector<T, Allocator>& v) {
  adviseHugePages(v.data(), v.capacity() * sizeof(T));
}

}  // namespace abdyn::internal
