// The op table's cost per call. BM_Dispatch* run an op of this file whose kernel is empty: what
// remains is run() itself (check() of three operands as binary's, the kernel choice, the call),
// the cost the table adds to every op; it must stay under a microsecond. The others run real ops
// on one element through their public functions (check, dispatch, adapter and a kernel that
// does almost nothing but enter its OpenMP region), to compare with a kiln before the table.
#include <benchmark/benchmark.h>

#include <kiln/kiln.h>

#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace {

// An op with binary's operands and checks and a kernel that does nothing.
struct EmptyOp {
  static constexpr const char* kName = "benchmark_empty_op";
  const kiln::Tensor& a;
  const kiln::Tensor& b;
  kiln::Tensor& out;
  void check() const {
    kiln::detail::check_operands(kName, {{"a", &a}, {"b", &b}, {"out", &out}}, kiln::DType::f32);
    kiln::detail::check_same_device(kName, {{"a", &a}, {"b", &b}, {"out", &out}});
    kiln::detail::check_same_shape(kName, {{"a", &a}, {"b", &b}, {"out", &out}});
  }
  kiln::Device device() const { return a.device(); }
};
void empty_kernel(EmptyOp& o) { benchmark::DoNotOptimize(&o); }
const kiln::RegisterKernel<EmptyOp> kEmpty(kiln::Backend::reference, empty_kernel, "fp32", "none");

void BM_DispatchOfAnOpWithAnEmptyKernel(benchmark::State& state) {
  const kiln::Tensor a = kiln::Tensor::full({1}, 1.0f), b = kiln::Tensor::full({1}, 2.0f);
  kiln::Tensor out = kiln::Tensor::empty({1});
  for (auto _ : state) kiln::run(EmptyOp{a, b, out});
}
BENCHMARK(BM_DispatchOfAnOpWithAnEmptyKernel);

void BM_ScaleOneElementThroughTheOpTable(benchmark::State& state) {
  kiln::Tensor x = kiln::Tensor::full({1}, 1.0f);
  for (auto _ : state) {
    kiln::scale(x, 1.0f);
    benchmark::DoNotOptimize(x.data<float>());
  }
}
BENCHMARK(BM_ScaleOneElementThroughTheOpTable);

void BM_BinaryOneElementThroughTheOpTable(benchmark::State& state) {
  const kiln::Tensor a = kiln::Tensor::full({1}, 1.0f), b = kiln::Tensor::full({1}, 2.0f);
  kiln::Tensor out = kiln::Tensor::empty({1});
  for (auto _ : state) {
    kiln::binary(kiln::BinaryOp::add, a, b, out);
    benchmark::DoNotOptimize(out.data<float>());
  }
}
BENCHMARK(BM_BinaryOneElementThroughTheOpTable);

// A Linear forward of one element: the op with the most checks, and oneDNN or the reference.
void BM_LinearOneElementThroughTheOpTable(benchmark::State& state) {
  const kiln::Tensor x = kiln::Tensor::full({1, 1}, 1.0f), w = kiln::Tensor::full({1, 1}, 2.0f);
  const kiln::Tensor bias = kiln::Tensor::full({1}, 0.5f);
  kiln::Tensor y = kiln::Tensor::empty({1, 1});
  for (auto _ : state) {
    kiln::linear_forward(x, w, bias, y, true);
    benchmark::DoNotOptimize(y.data<float>());
  }
}
BENCHMARK(BM_LinearOneElementThroughTheOpTable);

void BM_ScaleOneElementInline(benchmark::State& state) {
  kiln::Tensor x = kiln::Tensor::full({1}, 1.0f);
  float* p = x.data<float>();
  for (auto _ : state) {
    *p *= 1.0f;
    benchmark::DoNotOptimize(p);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_ScaleOneElementInline);

}  // namespace

BENCHMARK_MAIN();
