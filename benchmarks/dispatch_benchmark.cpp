// The op table's cost per call: an op on one element, whose kernel does almost nothing, through
// the public function (check() + kernel choice + adapter), against the same arithmetic inline.
// The difference is what dispatch adds to every op; it must stay under a microsecond.
#include <benchmark/benchmark.h>

#include <kiln/kiln.h>

namespace {

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
