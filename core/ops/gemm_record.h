// gemm's record, filled by check() (core/ops/gemm.cpp) and taken by the CPU GEMM
// (core/cpu/gemm.cpp, which the CPU linear and convolution bodies build on), oneDNN's
// (core/cpu/onednn/matmul.cpp) and the CUDA launch (core/cuda/gemm.cu, cuBLAS): row-major
// out (m, n) = alpha * op(a) @ op(b) + beta * out, op(a) (m, k), op(b) (k, n); a is stored
// (m, k), or (k, m) when trans_a; b (k, n), or (n, k) when trans_b.
#pragma once

#include "kiln/core/op_record.h"

namespace kiln::rec {

struct Gemm {
  bool trans_a, trans_b;
  Index m, n, k;
  float alpha;
  const float* a;
  const float* b;
  float beta;
  float* out;  // beta == 0 overwrites it without reading it
};

}  // namespace kiln::rec

namespace kiln::cuda {
// Queued on `stream`, checked, never synchronising the host.
void gemm(const rec::Gemm& o, cudaStream_t stream);
}  // namespace kiln::cuda
