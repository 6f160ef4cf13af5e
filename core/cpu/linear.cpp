// CPU Linear forward with the bias folded into the GEMM: y starts as the bias rows and the GEMM
// adds the product to them (beta = 1), which replaces both the zero fill a beta = 0 GEMM does and
// a separate bias pass over y; the ReLU then runs in place. The oneDNN path is one matmul with
// the bias and ReLU as post-ops.
#include <algorithm>

#include "kiln/core/cpu/activation.h"
#include "kiln/core/cpu/bias.h"
#include "kiln/core/cpu/gemm.h"
#include "kiln/core/cpu/onednn/onednn.h"
#include "kiln/core/cpu/parallel_loop.h"
#include "kiln/core/ops/linear.h"
#include "kiln/core/precision.h"

namespace kiln::cpu {

namespace {
// oneDNN refuses empty matrices; those (nothing to multiply) take the reference path.
bool use_onednn(Index n, Index in, Index out) {
  return onednn::active() && n > 0 && in > 0 && out > 0;
}
}  // namespace

void linear_forward(const rec::LinearForward& o) {
  const Index n = o.n, in = o.in, out = o.out;
  if (use_onednn(n, in, out)) return onednn::linear_forward(o, bf16_products());
  const float *x = o.x, *w = o.w, *bias = o.bias;
  float* y = o.y;
  if (bias != nullptr) {
#pragma omp parallel for if (n * out > kParallelMin) schedule(static)
    for (Index r = 0; r < n; ++r) std::copy(bias, bias + out, y + r * out);
  }
  gemm({false, true, n, out, in, 1.0f, x, w, bias != nullptr ? 1.0f : 0.0f, y});
  if (o.relu) activation_forward({Activation::relu, n * out, y, y, 0.0f});
}

// The reference: the ReLU's mask, the two products and the bias gradient one after another
// (cpu::gemm rounds its inputs under bf16; the copy w_bf16 is not needed for that).
void linear_backward(const rec::LinearBackward& o) {
  const Index n = o.n, in = o.in, out = o.out;
  if (use_onednn(n, in, out)) return onednn::linear_backward(o, bf16_products());
  const float *dy = o.dy, *x = o.x, *w = o.w, *y_relu = o.y_relu;
  float *dw = o.dw, *dbias = o.dbias, *dx = o.dx, *dpre = o.dpre;
  const float* g = dy;
  if (y_relu != nullptr) {
    activation_backward({Activation::relu, n * out, y_relu, y_relu, dy, dpre, 0.0f});
    g = dpre;
  }
  gemm({true, false, out, in, n, 1.0f, g, x, 1.0f, dw});
  if (dbias != nullptr) bias_grad({n, out, g, dbias});
  if (dx != nullptr) gemm({false, false, n, in, out, 1.0f, g, w, 0.0f, dx});
}

namespace {

const RegisterKernel<op::LinearForward> kForward(Backend::reference, on_record<linear_forward>,
                                                 "fp32 bf16", reference_gemm_name());
const RegisterKernel<op::LinearBackward> kBackward(Backend::reference, on_record<linear_backward>,
                                                   "fp32 bf16", reference_gemm_name());

}  // namespace

}  // namespace kiln::cpu
