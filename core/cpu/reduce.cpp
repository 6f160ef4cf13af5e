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

}  // namespace

void reduce(ReduceOp op, Index outer, Index n, Index inner, const float* x, float* out) {
  const Index outputs = outer * inner;
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

void argmax(Index outer, Index n, Index inner, const float* x, std::int32_t* out) {
  const Index outputs = outer * inner;
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

void sum_squares(Index n, const float* x, float* out) {
  double sum = 0.0;
#pragma omp parallel for if (n > kParallelMin) schedule(static) reduction(+ : sum)
  for (Index i = 0; i < n; ++i) sum += static_cast<double>(x[i]) * x[i];
  out[0] = static_cast<float>(sum);
}

namespace {

void reduce_kernel(op::Reduce& o) {
  reduce(o.f, o.split.outer, o.split.n, o.split.inner, o.x.data<float>(), o.out.data<float>());
}
void argmax_kernel(op::Argmax& o) {
  argmax(o.split.outer, o.split.n, o.split.inner, o.x.data<float>(), o.out.data<std::int32_t>());
}
void sum_squares_kernel(op::SumSquares& o) {
  sum_squares(o.x.numel(), o.x.data<float>(), o.out.data<float>());
}

const RegisterKernel<op::Reduce> kReduce(Backend::reference, reduce_kernel, "fp32", "kiln");
const RegisterKernel<op::Argmax> kArgmax(Backend::reference, argmax_kernel, "fp32", "kiln");
const RegisterKernel<op::SumSquares> kSumSquares(Backend::reference, sum_squares_kernel, "fp32",
                                                 "kiln");

}  // namespace

}  // namespace kiln::cpu
