// CUDA GEMM: row-major c (m, n) = alpha * op(a) @ op(b) + beta * c through cuBLAS, in pedantic
// fp32 (so results match the CPU to 1e-4) unless the process asked for TF32 or bf16 tensor-core
// math (core/precision.h, core/cuda/compute_type.h). k == 0 is handled here (c = beta * c), since
// cuBLAS rejects a leading dimension of 0.
#include <cublas_v2.h>

#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/compute_type.h"
#include "kiln/core/cuda/context.h"
#include "kiln/core/cuda/gemm_setup.h"
#include "kiln/core/cuda/launch.cuh"
#include "kiln/core/ops/gemm_record.h"

namespace kiln::cuda {

namespace {

// c = beta * c for an empty product; beta == 0 writes zeros without reading c (BLAS semantics,
// so NaN garbage in fresh output memory never survives).
__global__ void scale_output(Index n, float beta, float* c) {
  for (Index i = detail::grid_start(); i < n; i += detail::grid_stride())
    c[i] = beta == 0.0f ? 0.0f : beta * c[i];
}

}  // namespace

bool scale_if_nothing_to_multiply(Index count, Index k, float alpha, float beta, float* c,
                                  cudaStream_t stream) {
  if (k != 0 && alpha != 0.0f) return false;
  if (beta == 1.0f) return true;
  scale_output<<<detail::blocks_for(count), detail::kThreads, 0, stream>>>(count, beta, c);
  KILN_CUDA_CHECK_LAUNCH();
  return true;
}

cublasHandle_t cublas_handle_for_call(cudaStream_t stream, MatmulPrecision precision) {
  int device = 0;
  KILN_CUDA_CHECK(cudaGetDevice(&device));
  cublasHandle_t handle = cublas_handle(device, stream);
  KILN_CUBLAS_CHECK(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST));
  KILN_CUBLAS_CHECK(cublasSetMathMode(handle, math_mode(precision)));
  return handle;
}

void gemm(const rec::Gemm& o, cudaStream_t stream) {
  if (o.m == 0 || o.n == 0) return;
  if (scale_if_nothing_to_multiply(o.m * o.n, o.k, o.alpha, o.beta, o.out, stream)) return;
  const MatmulPrecision precision = matmul_precision();
  cublasHandle_t handle = cublas_handle_for_call(stream, precision);
  const ColumnMajorOperands c = column_major_operands(o.trans_a, o.trans_b, o.m, o.n, o.k);
  // The 64-bit API: no silent int truncation for a dimension or leading dimension past 2^31.
  KILN_CUBLAS_CHECK(cublasGemmEx_64(handle, c.op_b, c.op_a, o.n, o.m, o.k, &o.alpha, o.b,
                                    CUDA_R_32F, c.ld_b, o.a, CUDA_R_32F, c.ld_a, &o.beta, o.out,
                                    CUDA_R_32F, o.n, compute_type(precision), CUBLAS_GEMM_DEFAULT));
}

}  // namespace kiln::cuda
