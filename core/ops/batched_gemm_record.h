// batched_gemm's record, filled by check() (core/ops/batched_gemm.cpp) and taken by the CPU body
// (core/cpu/batched_gemm.cpp), oneDNN's (core/cpu/onednn/batched_gemm.cpp) and the CUDA launch
// (core/cuda/batched_gemm.cu, cuBLAS): row-major out[i] (m, n) = alpha * op(a[i]) @ op(b[i]) +
// beta * out[i] for i < batch, each operand's matrices packed one after another and stored as
// gemm's (core/ops/gemm_record.h).
#pragma once

#include "kiln/core/op_record.h"

namespace kiln::rec {

struct BatchedGemm {
  bool trans_a, trans_b;
  Index batch, m, n, k;
  float alpha;
  const float* a;
  const float* b;
  float beta;
  float* out;  // beta == 0 overwrites it without reading it
};

}  // namespace kiln::rec

namespace kiln::cuda {
// Queued on `stream`, checked, never synchronising the host.
void batched_gemm(const rec::BatchedGemm& o, cudaStream_t stream);
}  // namespace kiln::cuda
