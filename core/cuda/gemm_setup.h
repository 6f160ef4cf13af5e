// What core/cuda/gemm.cu and batched_gemm.cu share before they call cuBLAS: the product with
// nothing to multiply, and the calling thread's handle set up for one call. Internal to core/cuda.
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

}  // namespace kiln::cuda
