// batched_gemm's record, filled by check() (core/ops/batched_gemm.cpp) and taken by the CPU body
// (core/cpu/batched_gemm.cpp), oneDNN's (core/cpu/onednn/batched_gemm.cpp) and the CUDA launch
// (core/cuda/batched_gemm.cu, cuBLAS): row-major out[i] (m, n) = alpha * op(a[i]) @ op(b[i]) +
// beta * out[i] for i < batch, each operand's matrices packed one after another and stored as
// gemm's (core/ops/gemm_record.h).
#pragma once

#include "kiln/core/op_record.h"
#include "kiln/core/ops/gemm_record.h"

namespace kiln::rec {

// gemm's record of the first product (its a, b and out the first matrices), and how many follow.
struct BatchedGemm : Gemm {
  Index batch;
};

}  // namespace kiln::rec

namespace kiln::cuda {
// Queued on `stream`, checked, never synchronising the host.
void batched_gemm(const rec::BatchedGemm& o, cudaStream_t stream);
}  // namespace kiln::cuda
