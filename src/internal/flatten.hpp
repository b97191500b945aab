#pragma once
// ABDYN_FLATTEN on an algorithm's kernel inlines every call inside it that the compiler can see: the
// spatial operations and Eigen's fixed-size kernels. Left to its heuristics, GCC keeps some of them as
// calls that pass 3- and 6-vectors through memory, which makes the ABA up to 2x slower
// (docs/performance-history.md).
//
// Only in optimised, uninstrumented builds: at -O0 flattening buys nothing, and under AddressSanitizer
// or ThreadSanitizer the fully inlined, instrumented kernels took GCC 12 more than ten minutes per file.

// GCC says it is instrumenting through __SANITIZE_ADDRESS__ / __SANITIZE_THREAD__; clang 14 (CI's fuzzing
// build) only through __has_feature.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ABDYN_INSTRUMENTED_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define ABDYN_INSTRUMENTED_BUILD 1
#endif
#endif

#if defined(__GNUC__) && defined(__OPTIMIZE__) && !defined(ABDYN_INSTRUMENTED_BUILD)
#define ABDYN_FLATTEN __attribute__((flatten))
#else
#define ABDYN_FLATTEN
#endif
