// CUDA batched GEMM through cublasGemmStridedBatchedEx_64, row-major as core/cuda/gemm_setup.h
// explains, at the process's matmul precision. An empty product writes
// c = beta * c without reading a or b, as the CPU does.
#include <cublas_v2.h>

#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/compute_type.h"
#include "kiln/core/cuda/gemm_setup.h"
#include "kiln/core/ops/batched_gemm_record.h"

namespace kiln::cuda {

void batched_gemm(const rec::BatchedGemm& o, cudaStream_t stream) {
  if (o.batch == 0 || o.m == 0 || o.n == 0) return;
  if (scale_if_nothing_to_multiply(o.batch * o.m * o.n, o.k, o.alpha, o.beta, o.out, stream))
    return;
  const MatmulPrecision precision = matmul_precision();
  cublasHandle_t handle = cublas_handle_for_call(stream, precision);
  const ColumnMajorOperands c = column_major_operands(o.trans_a, o.trans_b, o.m, o.n, o.k);
  KILN_CUBLAS_CHECK(cublasGemmStridedBatchedEx_64(
      handle, c.op_b, c.op_a, o.n, o.m, o.k, &o.alpha, o.b, CUDA_R_32F, c.ld_b, o.k * o.n, o.a,
      CUDA_R_32F, c.ld_a, o.m * o.k, &o.beta, o.out, CUDA_R_32F, o.n, o.m * o.n, o.batch,
      compute_type(precision), CUBLAS_GEMM_DEFAULT));
}

}  // namespace kiln::cuda
