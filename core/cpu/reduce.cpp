// CPU reductions of x viewed as (outer, n, inner) along n into out (outer, inner): sum, mean,
// max, argmax (the first index of the maximum) and the global sum of squares. Sums accumulate
// in double, so a million-element reduction keeps float32's precision. max and argmax let a
// NaN win, as PyTorch's do, so a diverged tensor is seen rather than skipped.
#include <cmath>
#include <cstdint>

#include "kiln/core/cpu/backend.h"
#include "kiln/core/ops/reduce.h"

namespace kiln::cpu {

namespace {

constexpr Index kParallelMin = 32768;

// True when v should replace the running maximum m: larger, or the first NaN.
inline bool beats(float v, float m) { return v > m || (std::isnan(v) && !std::isnan(m)); }

void reduce(const rec::Reduce& r) {
  const Index n = r.n, inner = r.inner;
  const float* x = r.x;
  float* out = r.out;
  const ReduceOp op = r.f;
  const Index outputs = r.outer * inner;
  // One task per output element (o, j); its n inputs sit `inner` apart.
#pragma omp parallel for if (outputs * n > kParallelMin) schedule(static)
  for (Index idx = 0; idx < outputs; ++idx) {
    const Index o = idx / inner, j = idx % inner;
    const float* first = x + o * n * inner + j;
    if (op == ReduceOp::max) {
      float m = first[0];
      for (Index k = 1; k < n; ++k)
        if (beats(first[k * inner], m)) m = first[k * inner];
      out[idx] = m;
    } else {
      double sum = 0.0;
      for (Index k = 0; k < n; ++k) sum += first[k * inner];
      out[idx] = static_cast<float>(op == ReduceOp::mean ? sum / static_cast<double>(n) : sum);
    }
  }
}

void argmax(const rec::Argmax& r) {
  const Index n = r.n, inner = r.inner;
  const float* x = r.x;
  std::int32_t* out = r.out;
  const Index outputs = r.outer * inner;
#pragma omp parallel for if (outputs * n > kParallelMin) schedule(static)
  for (Index idx = 0; idx < outputs; ++idx) {
    const Index o = idx / inner, j = idx % inner;
    const float* first = x + o * n * inner + j;
    Index best = 0;
    // Strictly greater: ties keep the earlier index.
    for (Index k = 1; k < n; ++k)
      if (beats(first[k * inner], first[best * inner])) best = k;
    out[idx] = static_cast<std::int32_t>(best);
  }
}

void sum_squares(const rec::SumSquares& r) {
  const Index n = r.n;
  const float* x = r.x;
  double sum = 0.0;
#pragma omp parallel for if (n > kParallelMin) schedule(static) reduction(+ : sum)
  for (Index i = 0; i < n; ++i) sum += static_cast<double>(x[i]) * x[i];
  r.out[0] = static_cast<float>(sum);
}

const RegisterKernel<op::Reduce> kReduce(Backend::reference, on_record<reduce>, "fp32", "kiln");
const RegisterKernel<op::Argmax> kArgmax(Backend::reference, on_record<argmax>, "fp32", "kiln");
const RegisterKernel<op::SumSquares> kSumSquares(Backend::reference, on_record<sum_squares>, "fp32",
                                                 "kiln");

}  // namespace

}  // namespace kiln::cpu
