// The launch of core/cuda/batched_gemm.cu on raw device pointers, queued on `stream`; checked,
// never synchronising the host. core/cuda/batched_gemm.cpp registers it in the op table.
#pragma once

#include "kiln/core/cuda/backend.h"

namespace kiln::cuda {

// Row-major c[i] (m, n) = alpha * op(a[i]) @ op(b[i]) + beta * c[i] for i < batch, the matrices
// of each operand packed one after another; through cuBLAS's strided-batched GEMM.
void batched_gemm(bool trans_a, bool trans_b, Index batch, Index m, Index n, Index k, float alpha,
                  const float* a, const float* b, float beta, float* c, cudaStream_t stream);

}  // namespace kiln::cuda
