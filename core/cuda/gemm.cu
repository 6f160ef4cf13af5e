// CUDA GEMM: row-major c (m, n) = alpha * op(a) @ op(b) + beta * c through cuBLAS, in pedantic
// fp32 (so results match the CPU to 1e-4) unless the process asked for TF32 or bf16 tensor-core
// math (core/precision.h, core/cuda/compute_type.h). k == 0 is handled here (c = beta * c), since
// cuBLAS rejects a leading dimension of 0.
#include <cublas_v2.h>

#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/compute_type.h"
#include "kiln/core/cuda/gemm_setup.h"
#include "kiln/core/cuda/launch.cuh"
#include "kiln/core/cuda/runtime.h"
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
  const bool trans_a = o.trans_a, trans_b = o.trans_b;
  const Index m = o.m, n = o.n, k = o.k;
  const float alpha = o.alpha, beta = o.beta;
  const float *a = o.a, *b = o.b;
  float* c = o.out;
  if (m == 0 || n == 0) return;
  if (scale_if_nothing_to_multiply(m * n, k, alpha, beta, c, stream)) return;
  const MatmulPrecision precision = matmul_precision();
  cublasHandle_t handle = cublas_handle_for_call(stream, precision);
  // cuBLAS is column-major, and a row-major (r, c) matrix is the column-major (c, r) matrix of
  // the same memory. So compute cᵀ (n, m) = op(b)ᵀ (n, k) · op(a)ᵀ (k, m) in column-major:
  // b comes first, and each operand keeps its own transpose flag.
  //   b row-major (k, n) = column-major (n, k), ld n; transposed: (n, k) = col (k, n), ld k.
  //   a row-major (m, k) = column-major (k, m), ld k; transposed: (k, m) = col (m, k), ld m.
  const cublasOperation_t op_b = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_a = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const Index ld_b = trans_b ? k : n;
  const Index ld_a = trans_a ? m : k;
  // The 64-bit API: no silent int truncation for a dimension or leading dimension past 2^31.
  KILN_CUBLAS_CHECK(cublasGemmEx_64(handle, op_b, op_a, n, m, k, &alpha, b, CUDA_R_32F, ld_b, a,
                                    CUDA_R_32F, ld_a, &beta, c, CUDA_R_32F, n,
                                    compute_type(precision), CUBLAS_GEMM_DEFAULT));
}

}  // namespace kiln::cuda
