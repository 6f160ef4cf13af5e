// The cuBLAS compute type and math mode of each MatmulPrecision (core/precision.h), shared by the
// cuBLAS GEMM (gemm.cu) and the cuBLASLt GEMM with epilogues (linear.cu), so both round alike.
#pragma once

#include <cublas_v2.h>

#include "kiln/core/precision.h"

namespace kiln::cuda {

// fp32: pedantic, no tensor-core rounding at any stage. tf32 / bf16: the inputs are rounded to
// TF32 / bfloat16 on the tensor cores and the products accumulate in fp32.
inline cublasComputeType_t compute_type(MatmulPrecision precision) {
  switch (precision) {
    case MatmulPrecision::tf32: return CUBLAS_COMPUTE_32F_FAST_TF32;
    case MatmulPrecision::bf16: return CUBLAS_COMPUTE_32F_FAST_16BF;
    case MatmulPrecision::fp32: break;
  }
  return CUBLAS_COMPUTE_32F_PEDANTIC;
}

// cuBLASLt takes no math mode, so its CUBLAS_COMPUTE_32F is already plain fp32 for fp32 data
// (TF32 only ever with CUBLAS_COMPUTE_32F_FAST_TF32); it also accepts the _PEDANTIC spelling,
// which changes nothing for real types.
inline cublasComputeType_t lt_compute_type(MatmulPrecision precision) {
  return precision == MatmulPrecision::fp32 ? CUBLAS_COMPUTE_32F : compute_type(precision);
}

// The cuBLAS handle's math mode to go with compute_type: pedantic math for fp32, so that no setting
// anywhere lets cuBLAS pick a reduced-precision kernel; the default otherwise, so that the compute
// type decides.
inline cublasMath_t math_mode(MatmulPrecision precision) {
  return precision == MatmulPrecision::fp32 ? CUBLAS_PEDANTIC_MATH : CUBLAS_DEFAULT_MATH;
}

}  // namespace kiln::cuda
