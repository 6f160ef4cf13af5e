// fp32 <-> bf16 copies (core/cuda/bf16_convert.h): grid-stride loops over __float2bfloat16_rn and
// its widening.
#include <cuda_bf16.h>

#include "kiln/core/cuda/bf16_convert.h"
#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/launch.cuh"

namespace kiln::cuda {

namespace {

__global__ void round_kernel(detail::Index n, const float* x, __nv_bfloat16* out) {
  for (detail::Index i = detail::grid_start(); i < n; i += detail::grid_stride())
    out[i] = __float2bfloat16_rn(x[i]);
}

__global__ void widen_kernel(detail::Index n, const __nv_bfloat16* x, float* out) {
  for (detail::Index i = detail::grid_start(); i < n; i += detail::grid_stride())
    out[i] = __bfloat162float(x[i]);
}

}  // namespace

void round_to_bf16(const float* x, void* out, std::int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  round_kernel<<<detail::blocks_for(n), detail::kThreads, 0, stream>>>(
      n, x, static_cast<__nv_bfloat16*>(out));
  KILN_CUDA_CHECK_LAUNCH();
}

void widen_from_bf16(const void* x, float* out, std::int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  widen_kernel<<<detail::blocks_for(n), detail::kThreads, 0, stream>>>(
      n, static_cast<const __nv_bfloat16*>(x), out);
  KILN_CUDA_CHECK_LAUNCH();
}

}  // namespace kiln::cuda
