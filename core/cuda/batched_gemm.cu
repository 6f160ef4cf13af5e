// CUDA batched GEMM through cublasGemmStridedBatchedEx_64, row-major as core/cuda/gemm.cu (which
// explains the operand swap) at the process's matmul precision. An empty product writes
// c = beta * c without reading a or b, as the CPU does.
#include <cublas_v2.h>

#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/compute_type.h"
#include "kiln/core/cuda/gemm_setup.h"
#include "kiln/core/ops/batched_gemm_record.h"

namespace kiln::cuda {

void batched_gemm(const rec::BatchedGemm& o, cudaStream_t stream) {
  const bool trans_a = o.trans_a, trans_b = o.trans_b;
  const Index batch = o.batch, m = o.m, n = o.n, k = o.k;
  const float alpha = o.alpha, beta = o.beta;
  const float *a = o.a, *b = o.b;
  float* c = o.out;
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
