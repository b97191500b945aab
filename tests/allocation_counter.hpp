#pragma once
// Counts the heap allocations of the whole process, and the bytes they ask for, while `counting` is set.
// Eigen allocates with malloc (not operator new), so the C allocator itself is interposed and forwards to
// glibc's implementation; the library is a shared object, so its allocations are counted too.
// AddressSanitizer interposes the same functions, so under it nothing is counted
// (ABDYN_COUNTS_ALLOCATIONS is 0) and the tests leave the counts to the uninstrumented builds.
// Include it in one source file of a test executable: it defines malloc and its kin.

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdlib>

namespace abdyn::test {

inline std::atomic<bool> counting{false};                 ///< whether allocations are counted now
inline std::atomic<long> allocations{0};                  ///< allocations counted
inline std::atomic<unsigned long long> allocated_bytes{0};  ///< bytes those allocations asked for

inline void countAllocation(std::size_t bytes) {
  if (counting) {
    ++allocations;
    allocated_bytes += bytes;
  }
}

}  // namespace abdyn::test

#if defined(__SANITIZE_ADDRESS__)
#define ABDYN_COUNTS_ALLOCATIONS 0
#else
#define ABDYN_COUNTS_ALLOCATIONS 1
extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void __libc_free(void*);

void* malloc(std::size_t n) {
  abdyn::test::countAllocation(n);
  return __libc_malloc(n);
}
void* calloc(std::size_t n, std::size_t size) {
  abdyn::test::countAllocation(n * size);
  return __libc_calloc(n, size);
}
void* realloc(void* p, std::size_t n) {
  abdyn::test::countAllocation(n);
  return __libc_realloc(p, n);
}
void* aligned_alloc(std::size_t alignment, std::size_t n) {
  abdyn::test::countAllocation(n);
  return __libc_memalign(alignment, n);
}
int posix_memalign(void** out, std::size_t alignment, std::size_t n) {
  abdyn::test::countAllocation(n);
  *out = __libc_memalign(alignment, n);
  return *out ? 0 : ENOMEM;
}
void free(void* p) { __libc_free(p); }
}
#endif

namespace abdyn::test {

/// What was counted between startCounting and stopCounting.
struct AllocationCount {
  long allocations = 0;           ///< heap allocations
  unsigned long long bytes = 0;  ///< bytes they asked for: an upper bound on what is held at the peak
};

/// Starts counting from zero (nothing is counted under AddressSanitizer).
inline void startCounting() {
  allocations = 0;
  allocated_bytes = 0;
  counting = ABDYN_COUNTS_ALLOCATIONS;
}

/// Stops counting; what was counted since startCounting.
inline AllocationCount stopCounting() {
  counting = false;
  return {allocations, allocated_bytes};
}

/// Runs f with the counting on; the number of heap allocations it made (0 when nothing is counted).
template <class F>
long countAllocations(F&& f) {
  startCounting();
  f();
  return stopCounting().allocations;
}

}  // namespace abdyn::test
