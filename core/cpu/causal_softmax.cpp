// CPU reference causal softmax over rows of (T, T) matrices: row r is query i = r mod T, which
// sees columns j <= i. The scaled row is shifted by its maximum (no overflow) and exponentiated
// once, vectorised (core/cpu/vector_math.h), into the output, which is then divided by the sum;
// that sum and backward's dot product are taken in double; the masked columns are written as
// exact zeros.
#include <algorithm>
#include <cmath>

#include "kiln/core/cpu/backend.h"
#include "kiln/core/cpu/parallel_loop.h"
#include "kiln/core/cpu/vector_math.h"
#include "kiln/core/ops/causal_softmax.h"

namespace kiln::cpu {

namespace {

void forward(const rec::CausalSoftmaxForward& o) {
  const Index rows = o.rows, t = o.t;
  const float* x = o.x;
  float* y = o.y;
  const float scale = o.scale;
#pragma omp parallel for if (rows * t > kParallelMin) schedule(static)
  for (Index r = 0; r < rows; ++r) {
    const Index seen = r % t + 1;  // columns 0 .. i
    const float* in = x + r * t;
    float* out = y + r * t;
    float m = scale * in[0];
    for (Index j = 1; j < seen; ++j) m = scale * in[j] > m ? scale * in[j] : m;
    // out may be in: each column is read before it is written.
    array_of(out, seen) = scale * array_of(in, seen) - m;
    exp_into(seen, out, out);
    double sum = 0.0;
    for (Index j = 0; j < seen; ++j) sum += static_cast<double>(out[j]);
    const auto inverse = static_cast<float>(1.0 / sum);
    array_of(out, seen) *= inverse;
    std::fill(out + seen, out + t, 0.0f);
  }
}

void backward(const rec::CausalSoftmaxBackward& o) {
  const Index rows = o.rows, t = o.t;
  const float *y = o.y, *dy = o.dy;
  float* dx = o.dx;
  const float scale = o.scale;
#pragma omp parallel for if (rows * t > kParallelMin) schedule(static)
  for (Index r = 0; r < rows; ++r) {
    const Index seen = r % t + 1;
    const float* yr = y + r * t;
    const float* g = dy + r * t;
    float* out = dx + r * t;
    double dot = 0.0;
    for (Index j = 0; j < seen; ++j) dot += static_cast<double>(g[j]) * yr[j];
    const auto dot_f = static_cast<float>(dot);
    for (Index j = 0; j < seen; ++j) out[j] = scale * (yr[j] * (g[j] - dot_f));
    for (Index j = seen; j < t; ++j) out[j] = 0.0f;
  }
}

const RegisterKernel<op::CausalSoftmaxForward> kForward(Backend::reference, on_record<forward>,
                                                        "fp32", "kiln");
const RegisterKernel<op::CausalSoftmaxBackward> kBackward(Backend::reference, on_record<backward>,
                                                          "fp32", "kiln");

}  // namespace

}  // namespace kiln::cpu
