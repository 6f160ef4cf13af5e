// CPU Linear forward with the bias folded into the GEMM: y starts as the bias rows and the GEMM
// adds the product to them (beta = 1), which replaces both the zero fill a beta = 0 GEMM does and
// a separate bias pass over y; the ReLU then runs in place. The oneDNN path is one matmul with
// the bias and ReLU as post-ops.
#include <algorithm>

#include "kiln/core/cpu/kernels.h"
#include "kiln/core/cpu/onednn/onednn.h"
#include "kiln/core/cpu/parallel_loop.h"
#include "kiln/core/precision.h"

namespace kiln::cpu {

void linear_forward(Index n, Index in, Index out, const float* x, const float* w, const float* bias,
                    bool relu, float* y) {
  if (onednn::active() && n > 0 && in > 0 && out > 0)  // oneDNN refuses empty matrices
    return onednn::linear_forward(n, in, out, x, w, bias, relu, y,
                                  matmul_precision() == MatmulPrecision::bf16);
  if (bias != nullptr) {
#pragma omp parallel for if (n * out > kParallelMin) schedule(static)
    for (Index r = 0; r < n; ++r) std::copy(bias, bias + out, y + r * out);
  }
  gemm(false, true, n, out, in, 1.0f, x, w, bias != nullptr ? 1.0f : 0.0f, y);
  if (relu) activation_forward(Activation::relu, n * out, y, y, 0.0f);
}

}  // namespace kiln::cpu
