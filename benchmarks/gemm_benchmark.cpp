// CPU GEMM throughput (GFLOP/s) at the shapes of one Linear layer of the article's MLP: batch 256,
// width 1024. Forward y = x wᵀ and the backward products dW = dyᵀ x and dx = dy w, each through
// the public kiln::gemm on CPU tensors, and Linear's fused forward (bias and ReLU); beside them the
// same forward product through Eigen's own GEMM, so all are compared side by side in one run.
#include <benchmark/benchmark.h>
#include <Eigen/Core>

#include <cstdint>
#include <string>
#include <utility>

#include "kiln/core/cpu_compute.h"
#include "kiln/core/ops.h"
#include "kiln/core/parallel.h"
#include "kiln/core/precision.h"
#include "kiln/core/tensor.h"

namespace {

constexpr std::int64_t kBatch = 256;
constexpr std::int64_t kWidth = 1024;

kiln::Tensor filled(kiln::Shape shape, float value) {
  return kiln::Tensor::full(std::move(shape), value, kiln::Device::cpu());
}

// Sets the threads, CPU path and precision of the state's arguments for one benchmark, then puts
// back what was there; labels the row with the path and precision. Paths this build lacks skip.
// The arguments: the thread count (0: the pool's default), the CPU path (0 reference: OpenBLAS or
// Eigen; 1 oneDNN, core/cpu_compute.h) and the precision (0 fp32; 1 bf16: inputs rounded to bf16,
// fp32 sums).
class Setting {
 public:
  explicit Setting(benchmark::State& state)
      : threads_(kiln::num_threads()), compute_(kiln::cpu_compute()),
        precision_(kiln::matmul_precision()) {
    const auto compute =
        state.range(1) == 1 ? kiln::CpuCompute::onednn : kiln::CpuCompute::reference;
    const auto precision =
        state.range(2) == 1 ? kiln::MatmulPrecision::bf16 : kiln::MatmulPrecision::fp32;
    if (compute == kiln::CpuCompute::onednn && !kiln::onednn_built()) {
      state.SkipWithError("built without oneDNN");
      return;
    }
    if (state.range(0) > 0) kiln::set_num_threads(static_cast<int>(state.range(0)));
    kiln::set_cpu_compute(compute);
    kiln::set_matmul_precision(precision);
    state.SetLabel(std::string(kiln::cpu_compute_name(compute)) + " " +
                   kiln::matmul_precision_name(precision));
  }
  ~Setting() {
    kiln::set_num_threads(threads_);
    kiln::set_cpu_compute(compute_);
    kiln::set_matmul_precision(precision_);
  }

 private:
  int threads_;
  kiln::CpuCompute compute_;
  kiln::MatmulPrecision precision_;
};

void report_rate(benchmark::State& state, double flops) {
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["threads"] = kiln::num_threads();
}

// Times gemm(a, trans_a, b, trans_b, out) and reports 2 m n k flops per call as GFLOP/s.
void run_gemm(benchmark::State& state, const kiln::Tensor& a, bool trans_a, const kiln::Tensor& b,
              bool trans_b, kiln::Tensor& out) {
  const Setting setting(state);
  const std::int64_t k = trans_a ? a.size(0) : a.size(1);
  for (auto _ : state) {
    kiln::gemm(a, trans_a, b, trans_b, out);
    benchmark::DoNotOptimize(out.raw_data());
    benchmark::ClobberMemory();
  }
  report_rate(state, 2.0 * static_cast<double>(out.size(0)) * out.size(1) * k);
}

// Linear's fused forward: y (256, 1024) = relu(x · wᵀ + bias).
void BM_LinearFusedForward(benchmark::State& state) {
  const kiln::Tensor x = filled({kBatch, kWidth}, 0.5f), w = filled({kWidth, kWidth}, 0.25f);
  const kiln::Tensor bias = filled({kWidth}, -0.5f);
  kiln::Tensor y = kiln::Tensor::empty({kBatch, kWidth});
  const Setting setting(state);
  for (auto _ : state) {
    kiln::linear_forward(x, w, bias, y, true);
    benchmark::DoNotOptimize(y.raw_data());
    benchmark::ClobberMemory();
  }
  report_rate(state, 2.0 * kBatch * kWidth * kWidth);
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
  const RowMatrix x = RowMatrix::Constant(kBatch, kWidth, 0.5f),
                  w = RowMatrix::Constant(kWidth, kWidth, 0.25f);
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

// One thread, then the pool's default; each on both CPU paths in fp32 and bf16. Wall time, not
// CPU time: OpenMP's worker threads do the work the main thread waits for.
void configure(benchmark::internal::Benchmark* b) {
  b->ArgNames({"threads", "onednn", "bf16"})
      ->ArgsProduct({{1, 0}, {0, 1}, {0, 1}})
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_LinearForward_XWt)->Apply(configure);
BENCHMARK(BM_LinearWeightGrad_DYtX)->Apply(configure);
BENCHMARK(BM_LinearInputGrad_DYW)->Apply(configure);
BENCHMARK(BM_LinearFusedForward)->Apply(configure);
BENCHMARK(BM_EigenReference_XWt)
    ->ArgName("threads")
    ->Arg(1)
    ->Arg(0)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
