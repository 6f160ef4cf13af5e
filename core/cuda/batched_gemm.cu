// CUDA batched GEMM through cublasGemmStridedBatchedEx_64, row-major as core/cuda/gemm.cu (which
// explains the operand swap) at the process's matmul precision. An empty product writes
// c = beta * c without reading a or b, as the CPU does.
#include <cublas_v2.h>

#include "kiln/core/cuda/batched_gemm.h"
#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/compute_type.h"
#include "kiln/core/cuda/gemm_setup.h"

namespace kiln::cuda {

void batched_gemm(bool trans_a, bool trans_b, Index batch, Index m, Index n, Index k, float alpha,
                  const float* a, const float* b, float beta, float* c, cudaStream_t stream) {
  if (batch == 0 || m == 0 || n == 0) return;
  if (scale_if_nothing_to_multiply(batch * m * n, k, alpha, beta, c, stream)) return;
  const MatmulPrecision precision = matmul_precision();
  cublasHandle_t handle = cublas_handle_for_call(stream, precision);
  // cᵀ (n, m) = op(b)ᵀ · op(a)ᵀ in column-major, per matrix (see core/cuda/gemm.cu).
  const cublasOperation_t op_b = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_a = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const Index ld_b = trans_b ? k : n;
  const Index ld_a = trans_a ? m : k;
  KILN_CUBLAS_CHECK(cublasGemmStridedBatchedEx_64(
      handle, op_b, op_a, n, m, k, &alpha, b, CUDA_R_32F, ld_b, k * n, a, CUDA_R_32F, ld_a, m * k,
      &beta, c, CUDA_R_32F, n, m * n, batch, compute_type(precision), CUBLAS_GEMM_DEFAULT));
}

}  // namespace kiln::cuda
