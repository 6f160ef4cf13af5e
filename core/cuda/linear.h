// The launches of core/cuda/linear.cu on raw device pointers, queued on `stream`; every launch
// is checked and none synchronises the host. core/cuda/linear.cpp registers them in the op table.
#pragma once

#include "kiln/core/cuda/backend.h"

namespace kiln::cuda {

// linear.cu — y (n, out) = x (n, in) · w (out, in)ᵀ + bias (out, or null), ReLU'd when relu,
// through cuBLASLt's epilogues.
void linear_forward(Index n, Index in, Index out, const float* x, const float* w, const float* bias,
                    bool relu, float* y, cudaStream_t stream);
// How many linear_forward calls of this process found no cuBLASLt algorithm and took the GEMM +
// bias + ReLU kernels instead (the GPU tests check that cuBLASLt served the usual shapes).
std::int64_t linear_forward_fallbacks();

}  // namespace kiln::cuda
