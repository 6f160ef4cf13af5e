// STREAM's triad (a[i] = b[i] + s * c[i], 24 bytes per element moved) on one thread and on every
// usable CPU, each thread touching its own slice first so its pages sit near it; GEMM through
// kiln::matmul, the path training takes (oneDNN's kernels, kiln's OpenMP pool). Best of a few
// repetitions, as STREAM reports.
#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "apps/doctor/judgement.h"
#include "apps/doctor/machine_facts.h"
#include "apps/doctor/measure.h"
#include "kiln/core/cpu_description.h"
#include "kiln/core/ops.h"
#include "kiln/core/parallel.h"
#include "kiln/core/tensor.h"

namespace kiln::doctor {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Triad over `threads` threads; returns GB/s, best of `repeats`.
double triad_gbs(std::int64_t n, int threads, int repeats) {
  std::vector<double> a(static_cast<std::size_t>(n)), b(a.size()), c(a.size());
  auto slice = [&](int t, auto&& body) {
    const std::int64_t begin = n * t / threads, end = n * (t + 1) / threads;
    body(begin, end);
  };
  auto run_all = [&](auto&& body) {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back([&, t] { slice(t, body); });
    for (std::thread& th : pool) th.join();
  };
  run_all([&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      a[i] = 0.0;
      b[i] = 1.0;
      c[i] = 2.0;
    }
  });
  double best = 0.0;
  for (int r = 0; r < repeats; ++r) {
    const auto start = Clock::now();
    run_all([&](std::int64_t begin, std::int64_t end) {
      double* __restrict pa = a.data();
      const double* __restrict pb = b.data();
      const double* __restrict pc = c.data();
      for (std::int64_t i = begin; i < end; ++i) pa[i] = pb[i] + 3.0 * pc[i];
    });
    best = std::max(best, 24.0 * static_cast<double>(n) / seconds_since(start) * 1e-9);
  }
  return a[static_cast<std::size_t>(n / 2)] == 7.0 ? best : -1.0;  // the loop ran: 1 + 3 * 2
}

// 2 n^3 FLOPs per product; best of `repeats` after one warm-up (oneDNN's JIT compiles then).
double gemm_gflops(std::int64_t n, int repeats) {
  const Tensor a = Tensor::full(Shape{n, n}, 0.5f), b = Tensor::full(Shape{n, n}, 0.25f);
  (void)matmul(a, b);
  double best = 0.0;
  for (int r = 0; r < repeats; ++r) {
    const auto start = Clock::now();
    (void)matmul(a, b);
    best = std::max(best, 2.0 * static_cast<double>(n * n * n) / seconds_since(start) * 1e-9);
  }
  return best;
}

}  // namespace

Sizes Sizes::quick() {
  Sizes s;
  s.triad_elements = std::int64_t{1} << 20;
  s.gemm_n = 192;
  s.sustained_s = 0.3;
  s.fma_s = 0.03;
  s.decode_files = 20;
  s.copy_bytes = std::size_t{8} << 20;
  return s;
}

CpuFigures measure_cpu(const Sizes& sizes) {
  CpuFigures c;
  describe_cpu(cpu_description(), c);
  c.triad_single_gbs = triad_gbs(sizes.triad_elements, 1, 5);
  c.triad_threads = c.cores;
  c.triad_all_gbs = triad_gbs(sizes.triad_elements, c.cores, 5);
  c.gemm_threads = num_threads();
  c.gemm_gflops = gemm_gflops(sizes.gemm_n, 5);
  const Frequency f = max_frequency();
  c.frequency_mhz = f.mhz;
  c.frequency_source = f.source;
  c.fma_threads = std::min(c.physical_cores, c.gemm_threads);
  c.fma_gflops = fma_gflops(c.fma_threads, sizes.fma_s);
  set_gemm_peak(c);
  return c;
}

ThermalFigures measure_sustained(const Sizes& sizes) {
  ThermalFigures t;
  t.start_mhz = mean_current_mhz();
  const Tensor a = Tensor::full(Shape{sizes.gemm_n, sizes.gemm_n}, 0.5f);
  const double flops = 2.0 * static_cast<double>(sizes.gemm_n * sizes.gemm_n * sizes.gemm_n);
  std::vector<std::pair<double, double>> rates;  // (time since start, GFLOP/s)
  const auto start = Clock::now();
  while (seconds_since(start) < sizes.sustained_s) {
    const auto step = Clock::now();
    (void)matmul(a, a);
    rates.emplace_back(seconds_since(start), flops / seconds_since(step) * 1e-9);
  }
  t.end_mhz = mean_current_mhz();
  t.max_temperature_c = max_temperature_c();
  auto mean_between = [&](double from, double to) {
    double sum = 0.0;
    int count = 0;
    for (const auto& [at, rate] : rates)
      if (at >= from && at <= to) sum += rate, ++count;
    return count > 0 ? sum / count : -1.0;
  };
  const double total = seconds_since(start);
  t.sustained_gflops_first = mean_between(0.0, total / 4);
  t.sustained_gflops_last = mean_between(3 * total / 4, total);
  return t;
}

}  // namespace kiln::doctor
