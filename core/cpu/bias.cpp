// CPU bias_add and bias_grad on a (rows, cols) matrix: y += bias on every row, and
// dbias += column sums of dy (accumulated in double, so a 1000-row batch sums exactly enough).
// Loops go parallel only past kParallelMin elements; below that thread start-up costs more.
#include <algorithm>

#include "kiln/core/cpu/bias.h"
#include "kiln/core/cpu/parallel_loop.h"
#include "kiln/core/ops/bias.h"

namespace kiln::cpu {

namespace {
constexpr Index kColumnBlock = 64;  // columns per task: its double sums stay in registers/L1
}  // namespace

void bias_add(const rec::BiasAdd& o) {
  const Index rows = o.rows, cols = o.cols;
  const float* bias = o.bias;
  float* y = o.y;
#pragma omp parallel for if (rows * cols > kParallelMin) schedule(static)
  for (Index r = 0; r < rows; ++r) {
    float* row = y + r * cols;
    for (Index c = 0; c < cols; ++c) row[c] += bias[c];
  }
}

void bias_grad(const rec::BiasGrad& o) {
  const Index rows = o.rows, cols = o.cols;
  const float* dy = o.dy;
  float* dbias = o.dbias;
  // Threads split the columns, each walking every row for its block: no two threads write the
  // same dbias entry, and each reads dy row by row within the block.
#pragma omp parallel for if (rows * cols > kParallelMin) schedule(static)
  for (Index c0 = 0; c0 < cols; c0 += kColumnBlock) {
    const Index width = std::min(kColumnBlock, cols - c0);
    double sums[kColumnBlock] = {};
    for (Index r = 0; r < rows; ++r) {
      const float* row = dy + r * cols + c0;
      for (Index j = 0; j < width; ++j) sums[j] += row[j];
    }
    // "+=": gradients accumulate across calls (see core/ops.h).
    for (Index j = 0; j < width; ++j) dbias[c0 + j] = static_cast<float>(dbias[c0 + j] + sums[j]);
  }
}

namespace {

const RegisterKernel<op::BiasAdd> kAdd(Backend::reference, on_record<bias_add>, "fp32", "kiln");
const RegisterKernel<op::BiasGrad> kGrad(Backend::reference, on_record<bias_grad>, "fp32", "kiln");

}  // namespace

}  // namespace kiln::cpu
