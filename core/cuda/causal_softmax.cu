// CUDA causal softmax: one warp per row (query i = row mod T sees columns j <= i), the CPU
// reference's steps (core/cpu/causal_softmax.cpp), not its arithmetic, so the two agree within
// rounding, the op harness's reduction tolerance (1e-4 relative), not bit for bit. Masked columns
// are exact zeros. The warps need no barrier, so each loops over its rows on its own.
#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/launch.cuh"
#include "kiln/core/ops/causal_softmax_record.h"

namespace kiln::cuda {

namespace {

using detail::kThreads;
using detail::kWarp;
constexpr int kRowsPerBlock = kThreads / kWarp;

struct Max {
  __device__ float operator()(float a, float b) const { return b > a ? b : a; }
};

__device__ __forceinline__ Index first_row() {
  return static_cast<Index>(blockIdx.x) * kRowsPerBlock + threadIdx.x / kWarp;
}
__device__ __forceinline__ Index row_stride() {
  return static_cast<Index>(gridDim.x) * kRowsPerBlock;
}

// The scaled row shifted by its maximum, exponentiated in double (the CPU: its vectorised float
// exp), the sum in double reduced in a fixed order (detail::group_reduce), and each exp divided
// by that sum (the CPU multiplies by the float 1 / sum).
__global__ void forward_kernel(Index rows, Index t, const float* x, float* y, float scale) {
  const int lane = threadIdx.x % kWarp;
  for (Index r = first_row(); r < rows; r += row_stride()) {
    const Index seen = r % t + 1;
    const float* in = x + r * t;
    float* out = y + r * t;
    float m = -INFINITY;
    for (Index j = lane; j < seen; j += kWarp) m = Max()(m, __fmul_rn(scale, in[j]));
    // The CPU starts from column 0, so a NaN there is its maximum; any NaN reaches the sum.
    m = detail::group_reduce<kWarp>(m, Max(), static_cast<float*>(nullptr));
    double sum = 0.0;
    for (Index j = lane; j < seen; j += kWarp)
      sum += exp(static_cast<double>(__fsub_rn(__fmul_rn(scale, in[j]), m)));
    sum = detail::group_reduce<kWarp>(sum, detail::Add(), static_cast<double*>(nullptr));
    for (Index j = lane; j < t; j += kWarp)
      out[j] = j < seen ? static_cast<float>(
                              exp(static_cast<double>(__fsub_rn(__fmul_rn(scale, in[j]), m))) / sum)
                        : 0.0f;
  }
}

// The CPU's expression, its dot product summed in another order.
__global__ void backward_kernel(Index rows, Index t, const float* y, const float* dy, float* dx,
                                float scale) {
  const int lane = threadIdx.x % kWarp;
  for (Index r = first_row(); r < rows; r += row_stride()) {
    const Index seen = r % t + 1;
    const float* yr = y + r * t;
    const float* g = dy + r * t;
    float* out = dx + r * t;
    double dot = 0.0;
    for (Index j = lane; j < seen; j += kWarp) dot += static_cast<double>(g[j]) * yr[j];
    const auto dot_f = static_cast<float>(
        detail::group_reduce<kWarp>(dot, detail::Add(), static_cast<double*>(nullptr)));
    for (Index j = lane; j < t; j += kWarp)
      out[j] = j < seen ? __fmul_rn(scale, __fmul_rn(yr[j], __fsub_rn(g[j], dot_f))) : 0.0f;
  }
}

}  // namespace

void causal_softmax_forward(const rec::CausalSoftmaxForward& o, cudaStream_t stream) {
  const Index rows = o.rows, t = o.t;
  const float* x = o.x;
  float* y = o.y;
  const float scale = o.scale;
  if (rows == 0) return;
  forward_kernel<<<detail::blocks_for(rows, kRowsPerBlock), kThreads, 0, stream>>>(rows, t, x, y,
                                                                                   scale);
  KILN_CUDA_CHECK_LAUNCH();
}

void causal_softmax_backward(const rec::CausalSoftmaxBackward& o, cudaStream_t stream) {
  const Index rows = o.rows, t = o.t;
  const float *y = o.y, *dy = o.dy;
  float* dx = o.dx;
  const float scale = o.scale;
  if (rows == 0) return;
  backward_kernel<<<detail::blocks_for(rows, kRowsPerBlock), kThreads, 0, stream>>>(rows, t, y, dy,
                                                                                    dx, scale);
  KILN_CUDA_CHECK_LAUNCH();
}

}  // namespace kiln::cuda
