// The CPU's fp32 FMA rate, measured: twelve independent multiply-add chains held in registers
// (more than latency x pipes on any current core, so the pipes never wait), on one thread per
// core at once. It is the peak kiln-doctor judges the GEMM against where kiln's
// microarchitecture table has no figure (core/cpu_microarchitecture.cpp).
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "apps/doctor/measure.h"

namespace kiln::doctor {

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kChains = 12;

// Each chain x = x * m + a stays finite: m is just under 1 and a small. Each returns the sum of
// its chains, which the caller keeps, so no loop is dropped. (Written out per instruction set:
// a target attribute does not reach a template or lambda it calls.)
__attribute__((target("avx512f"))) float chains_avx512(long iterations) {
  __m512 x[kChains];
  for (int c = 0; c < kChains; ++c) x[c] = _mm512_set1_ps(1.0f + 0.01f * static_cast<float>(c));
  const __m512 m = _mm512_set1_ps(0.999999f), a = _mm512_set1_ps(1e-6f);
  for (long i = 0; i < iterations; ++i)
    for (int c = 0; c < kChains; ++c) x[c] = _mm512_fmadd_ps(x[c], m, a);
  alignas(64) float lanes[16];
  float total = 0.0f;
  for (int c = 0; c < kChains; ++c) {
    _mm512_store_ps(lanes, x[c]);
    for (float l : lanes) total += l;
  }
  return total;
}

__attribute__((target("avx2,fma"))) float chains_avx2(long iterations) {
  __m256 x[kChains];
  for (int c = 0; c < kChains; ++c) x[c] = _mm256_set1_ps(1.0f + 0.01f * static_cast<float>(c));
  const __m256 m = _mm256_set1_ps(0.999999f), a = _mm256_set1_ps(1e-6f);
  for (long i = 0; i < iterations; ++i)
    for (int c = 0; c < kChains; ++c) x[c] = _mm256_fmadd_ps(x[c], m, a);
  alignas(32) float lanes[8];
  float total = 0.0f;
  for (int c = 0; c < kChains; ++c) {
    _mm256_store_ps(lanes, x[c]);
    for (float l : lanes) total += l;
  }
  return total;
}

}  // namespace

double fma_gflops(int threads, double seconds) {
  const bool avx512 = __builtin_cpu_supports("avx512f");
  if (!avx512 && !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) return -1.0;
  const double lanes = avx512 ? 16.0 : 8.0;
  auto run = [&](long iterations) {
    return avx512 ? chains_avx512(iterations) : chains_avx2(iterations);
  };
  // Iterations for `seconds` on one thread, from a short calibration run.
  long iterations = 1 << 16;
  for (;;) {
    const auto start = Clock::now();
    volatile float keep = run(iterations);
    (void)keep;
    const double took = std::chrono::duration<double>(Clock::now() - start).count();
    if (took > 0.01 || iterations > (1L << 40)) {
      iterations =
          static_cast<long>(static_cast<double>(iterations) * seconds / std::max(took, 1e-6));
      break;
    }
    iterations *= 4;
  }
  iterations = std::max(iterations, 1L);
  threads = std::max(threads, 1);
  double best = -1.0;
  for (int r = 0; r < 3; ++r) {
    std::vector<float> results(static_cast<std::size_t>(threads));
    std::vector<std::thread> pool;
    const auto start = Clock::now();
    for (int t = 0; t < threads; ++t) pool.emplace_back([&, t] { results[t] = run(iterations); });
    for (std::thread& th : pool) th.join();
    const double took = std::chrono::duration<double>(Clock::now() - start).count();
    const double flops = 2.0 * lanes * kChains * static_cast<double>(iterations) * threads;
    if (std::all_of(results.begin(), results.end(), [](float v) { return v > 0.0f; }))
      best = std::max(best, flops / took * 1e-9);
  }
  return best;
}

}  // namespace kiln::doctor
