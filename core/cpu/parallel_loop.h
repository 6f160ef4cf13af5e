// The elementwise loop every CPU op runs: f(i) for i in [0, n), split over the OpenMP pool when
// n is large enough to pay for waking it (kParallelMin elements; below that one thread wins);
// and its chunked form for bodies that work on whole stretches (Eigen's vectorised arrays).
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

// The stretch for_each_chunk hands its body: a few pages, so that a body's temporaries of one
// chunk stay in L1 and the chunks still balance over the threads.
inline constexpr std::int64_t kChunk = 2048;

// f(begin, count) over [0, n) in chunks of kChunk (the last one shorter), split over the pool
// as for_each_index. Each element is in exactly one chunk, so the result never depends on the
// thread count.
template <typename F> void for_each_chunk(std::int64_t n, const F& f) {
  const std::int64_t chunks = (n + kChunk - 1) / kChunk;
#pragma omp parallel for if (n > kParallelMin) schedule(static)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::int64_t begin = c * kChunk;
    f(begin, n - begin < kChunk ? n - begin : kChunk);
  }
}

}  // namespace kiln::cpu
