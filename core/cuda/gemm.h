// The launches of core/cuda/gemm.cu on raw device pointers, queued on `stream`; every launch
// is checked and none synchronises the host. core/cuda/gemm.cpp registers them in the op table.
#pragma once

#include "kiln/core/cuda/backend.h"

namespace kiln::cuda {

// gemm.cu — row-major c (m, n) = alpha * op(a) @ op(b) + beta * c, through cuBLAS.
void gemm(bool trans_a, bool trans_b, Index m, Index n, Index k, float alpha, const float* a,
          const float* b, float beta, float* c, cudaStream_t stream);

}  // namespace kiln::cuda
