// The elementwise loop every CPU op runs: f(i) for i in [0, n), split over the OpenMP pool when
// n is large enough to pay for waking it (kParallelMin elements; below that one thread wins).
#pragma once

#include <cstdint>

namespace kiln::cpu {

inline constexpr std::int64_t kParallelMin = 32768;

template <typename F> void for_each_index(std::int64_t n, const F& f) {
#pragma omp parallel if (n > kParallelMin)
  {
    // Each thread works on its own copy of the body. The shared one is reached through a
    // pointer, so GCC must assume that every store through the body's output pointers may change
    // its captured values (sizes, flags, hyper-parameters) and reloads them per element, which
    // keeps the loop scalar; a local copy cannot alias them, so the loop vectorises.
    const F body = f;
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) body(i);
  }
}

}  // namespace kiln::cpu
