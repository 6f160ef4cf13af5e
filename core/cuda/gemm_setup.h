// What core/cuda/gemm.cu and batched_gemm.cu share before they call cuBLAS: the product with
// nothing to multiply, the calling thread's handle set up for one call, and the row-major
// product's column-major operands. Internal to core/cuda.
#pragma once

#include <cublas_v2.h>

#include "kiln/core/op_record.h"  // kiln::cuda::Index, cudaStream_t
#include "kiln/core/precision.h"

namespace kiln::cuda {

// When k == 0 or alpha == 0 (as the CPU: a and b are not read, since 0 * NaN would be NaN):
// queues c = beta * c over `count` elements (beta == 0 writes zeros without reading c) and
// returns true. Otherwise returns false and writes nothing.
bool scale_if_nothing_to_multiply(Index count, Index k, float alpha, float beta, float* c,
                                  cudaStream_t stream);

// The calling thread's cuBLAS handle for `stream` on the current device, set for host alpha and
// beta and for `precision`'s math mode. Set at each call: the handle is shared per thread and
// stream, and the modes are host-side stores.
cublasHandle_t cublas_handle_for_call(cudaStream_t stream, MatmulPrecision precision);

// cuBLAS is column-major, and a row-major (r, c) matrix is the column-major (c, r) matrix of the
// same memory. So row-major out (m, n) = op(a) (m, k) @ op(b) (k, n) is computed as column-major
// outᵀ (n, m) = op(b)ᵀ (n, k) · op(a)ᵀ (k, m): b is cuBLAS's first operand, each operand keeps its
// own transpose flag, and each leading dimension is the operand's stored row length (b (k, n):
// n, or k when transposed; a (m, k): k, or m when transposed). out's is n.
struct ColumnMajorOperands {
  cublasOperation_t op_b, op_a;
  Index ld_b, ld_a;
};
inline ColumnMajorOperands column_major_operands(bool trans_a, bool trans_b, Index m, Index n,
                                                 Index k) {
  return {trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, trans_b ? k : n,
          trans_a ? m : k};
}

}  // namespace kiln::cuda
