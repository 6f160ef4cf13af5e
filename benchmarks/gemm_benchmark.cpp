// CPU GEMM throughput (GFLOP/s) at the shapes of one Linear layer of the article's MLP: batch 256,
// width 1024. Forward y = x wᵀ and the backward products dW = dyᵀ x and dx = dy w, each through
// the public kiln::gemm on CPU tensors. The argument is the thread count (0: the pool's default).
// Beside them, the same forward product through Eigen's own GEMM, the fallback kiln uses when
// built without OpenBLAS, so the two are compared side by side in one run.
#include <Eigen/Core>
#include <benchmark/benchmark.h>

#include <cstdint>
#include <utility>

#include "kiln/core/ops.h"
#include "kiln/core/parallel.h"
#include "kiln/core/tensor.h"

namespace {

constexpr std::int64_t kBatch = 256;
constexpr std::int64_t kWidth = 1024;

kiln::Tensor filled(kiln::Shape shape, float value) {
  return kiln::Tensor::full(std::move(shape), value, kiln::Device::cpu());
}

// Times gemm(a, trans_a, b, trans_b, out) and reports 2 m n k flops per call as GFLOP/s.
void run_gemm(benchmark::State& state, const kiln::Tensor& a, bool trans_a, const kiln::Tensor& b,
              bool trans_b, kiln::Tensor& out) {
  const int default_threads = kiln::num_threads();
  if (state.range(0) > 0) kiln::set_num_threads(static_cast<int>(state.range(0)));
  const std::int64_t k = trans_a ? a.size(0) : a.size(1);
  for (auto _ : state) {
    kiln::gemm(a, trans_a, b, trans_b, out);
    benchmark::DoNotOptimize(out.raw_data());
    benchmark::ClobberMemory();
  }
  const double flops = 2.0 * static_cast<double>(out.size(0)) * out.size(1) * k;
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["threads"] = kiln::num_threads();
  kiln::set_num_threads(default_threads);
}

// Linear forward: y (256, 1024) = x (256, 1024) · wᵀ, w (1024, 1024) stored (out, in).
void BM_LinearForward_XWt(benchmark::State& state) {
  const kiln::Tensor x = filled({kBatch, kWidth}, 0.5f), w = filled({kWidth, kWidth}, 0.25f);
  kiln::Tensor y = kiln::Tensor::empty({kBatch, kWidth});
  run_gemm(state, x, false, w, true, y);
}

// Weight gradient: dW (1024, 1024) = dyᵀ (1024, 256) · x (256, 1024).
void BM_LinearWeightGrad_DYtX(benchmark::State& state) {
  const kiln::Tensor dy = filled({kBatch, kWidth}, 0.5f), x = filled({kBatch, kWidth}, 0.25f);
  kiln::Tensor dw = kiln::Tensor::empty({kWidth, kWidth});
  run_gemm(state, dy, true, x, false, dw);
}

// Input gradient, also the plain A·B case: dx (256, 1024) = dy (256, 1024) · w (1024, 1024).
void BM_LinearInputGrad_DYW(benchmark::State& state) {
  const kiln::Tensor dy = filled({kBatch, kWidth}, 0.5f), w = filled({kWidth, kWidth}, 0.25f);
  kiln::Tensor dx = kiln::Tensor::empty({kBatch, kWidth});
  run_gemm(state, dy, false, w, false, dx);
}

// The forward product through Eigen directly (kiln's GEMM without OpenBLAS), same shapes.
void BM_EigenReference_XWt(benchmark::State& state) {
  using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const RowMatrix x = RowMatrix::Constant(kBatch, kWidth, 0.5f), w = RowMatrix::Constant(kWidth, kWidth, 0.25f);
  RowMatrix y(kBatch, kWidth);
  const int default_threads = kiln::num_threads();
  if (state.range(0) > 0) kiln::set_num_threads(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    y.noalias() = x * w.transpose();
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * kBatch * kWidth * kWidth * 1e-9,
                                                 benchmark::Counter::kIsIterationInvariantRate);
  kiln::set_num_threads(default_threads);
}

// One thread, then the pool's default. Wall time, not CPU time: OpenMP's worker threads do the
// work the main thread waits for.
void configure(benchmark::internal::Benchmark* b) {
  b->ArgName("threads")->Arg(1)->Arg(0)->UseRealTime()->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_LinearForward_XWt)->Apply(configure);
BENCHMARK(BM_LinearWeightGrad_DYtX)->Apply(configure);
BENCHMARK(BM_LinearInputGrad_DYW)->Apply(configure);
BENCHMARK(BM_EigenReference_XWt)->Apply(configure);

}  // namespace

BENCHMARK_MAIN();
