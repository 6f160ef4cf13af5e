// The Linear ops' records, filled by check() (core/ops/linear.cpp) and taken by the CPU bodies
// (core/cpu/linear.cpp), oneDNN's (core/cpu/onednn/matmul.cpp) and the CUDA forward
// (core/cuda/linear.cu; the GPU backward is a composite of ops): x, dx (n, in); w, dw, w_bf16
// (out, in); bias, dbias (out); y, dy, y_relu, dpre (n, out).
#pragma once

#include "kiln/core/op_record.h"

namespace kiln::rec {

struct LinearForward {
  Index n, in, out;
  const float* x;
  const float* w;
  const std::uint16_t* w_bf16;  // CPU: the weight's bf16 copy (Bf16Shadow), or null
  const float* bias;            // or null
  bool relu;
  float* y;  // "="
};

struct LinearBackward {
  Index n, in, out;
  const float* dy;
  const float* x;
  const float* w;
  const std::uint16_t* w_bf16;  // as LinearForward's
  const float* y_relu;          // the forward's y when it was ReLU'd, else null
  float* dw;                    // "+="
  float* dbias;                 // "+=", or null
  float* dx;                    // "=", or null
  float* dpre;                  // scratch for dy * [y_relu > 0], or null without y_relu
};

}  // namespace kiln::rec

namespace kiln::cuda {
// y = x · wᵀ + bias, ReLU'd when relu, through cuBLASLt's epilogues; queued on `stream`,
// checked, never synchronising the host.
void linear_forward(const rec::LinearForward& o, cudaStream_t stream);
// How many linear_forward calls of this process found no cuBLASLt algorithm and took the GEMM +
// bias + ReLU kernels instead (the GPU tests check that cuBLASLt served the usual shapes).
std::int64_t linear_forward_fallbacks();
}  // namespace kiln::cuda
