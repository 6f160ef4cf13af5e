// CUDA layer_norm over (rows, cols): one block per row sums in double with detail::group_reduce
// (a fixed order: the same bits every run), then the CPU reference's float expressions
// (core/cpu/layer_norm.cpp) term for term. The per-feature gradients are column sums over the
// rows in double, one thread per column (coalesced across a row, no atomics).
#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/launch.cuh"
#include "kiln/core/cuda/layer_norm.h"

namespace kiln::cuda {

namespace {

using detail::kThreads;
using detail::kWarp;

// Grid-stride over rows; the loop is uniform over the block, as group_reduce's barriers need.
__global__ void forward_kernel(Index rows, Index cols, const float* x, const float* gamma,
                               const float* beta, float eps, float* y, float* save_mean,
                               float* save_invstd) {
  __shared__ double scratch[kThreads / kWarp];
  for (Index r = blockIdx.x; r < rows; r += gridDim.x) {
    const float* xr = x + r * cols;
    double sum = 0.0;
    for (Index c = threadIdx.x; c < cols; c += kThreads) sum += xr[c];
    const double mean = detail::group_reduce<kThreads>(sum, detail::Add(), scratch) / cols;
    double squares = 0.0;
    for (Index c = threadIdx.x; c < cols; c += kThreads) {
      const double d = xr[c] - mean;
      squares += d * d;
    }
    const double var = detail::group_reduce<kThreads>(squares, detail::Add(), scratch) / cols;
    const float mean_f = static_cast<float>(mean);
    const float invstd = static_cast<float>(1.0 / sqrt(var + static_cast<double>(eps)));
    if (threadIdx.x == 0) {
      save_mean[r] = mean_f;
      save_invstd[r] = invstd;
    }
    float* yr = y + r * cols;
    for (Index c = threadIdx.x; c < cols; c += kThreads)
      yr[c] = fmaf(__fmul_rn(xr[c] - mean_f, invstd), gamma[c], beta[c]);
  }
}

__global__ void backward_data_kernel(Index rows, Index cols, const float* dy, const float* x,
                                     const float* gamma, const float* save_mean,
                                     const float* save_invstd, float* dx) {
  __shared__ double scratch[kThreads / kWarp];
  for (Index r = blockIdx.x; r < rows; r += gridDim.x) {
    const float* xr = x + r * cols;
    const float* dyr = dy + r * cols;
    const float mean = save_mean[r], invstd = save_invstd[r];
    double sum_g = 0.0, sum_gx = 0.0;
    for (Index c = threadIdx.x; c < cols; c += kThreads) {
      const float g = __fmul_rn(dyr[c], gamma[c]);
      sum_g += g;
      sum_gx += static_cast<double>(g) * __fmul_rn(xr[c] - mean, invstd);
    }
    sum_g = detail::group_reduce<kThreads>(sum_g, detail::Add(), scratch);
    sum_gx = detail::group_reduce<kThreads>(sum_gx, detail::Add(), scratch);
    const auto mean_g = static_cast<float>(sum_g / cols);
    const auto mean_gx = static_cast<float>(sum_gx / cols);
    float* dxr = dx + r * cols;
    for (Index c = threadIdx.x; c < cols; c += kThreads) {
      const float xhat = __fmul_rn(xr[c] - mean, invstd);
      const float g = __fmul_rn(dyr[c], gamma[c]);
      dxr[c] = __fmul_rn(invstd, fmaf(-xhat, mean_gx, __fsub_rn(g, mean_g)));
    }
  }
}

__global__ void backward_params_kernel(Index rows, Index cols, const float* dy, const float* x,
                                       const float* save_mean, const float* save_invstd,
                                       float* dgamma, float* dbeta) {
  for (Index c = detail::grid_start(); c < cols; c += detail::grid_stride()) {
    double sum_dyx = 0.0, sum_dy = 0.0;
    for (Index r = 0; r < rows; ++r) {
      const float xhat = __fmul_rn(x[r * cols + c] - save_mean[r], save_invstd[r]);
      sum_dyx += static_cast<double>(dy[r * cols + c]) * xhat;
      sum_dy += dy[r * cols + c];
    }
    dgamma[c] += static_cast<float>(sum_dyx);
    dbeta[c] += static_cast<float>(sum_dy);
  }
}

}  // namespace

void layer_norm_forward(Index rows, Index cols, const float* x, const float* gamma,
                        const float* beta, float eps, float* y, float* save_mean,
                        float* save_invstd, cudaStream_t stream) {
  if (rows == 0) return;
  forward_kernel<<<detail::blocks_for(rows, 1), kThreads, 0, stream>>>(
      rows, cols, x, gamma, beta, eps, y, save_mean, save_invstd);
  KILN_CUDA_CHECK_LAUNCH();
}

void layer_norm_backward(Index rows, Index cols, const float* dy, const float* x,
                         const float* gamma, const float* save_mean, const float* save_invstd,
                         float* dx, float* dgamma, float* dbeta, cudaStream_t stream) {
  if (rows == 0) return;
  backward_data_kernel<<<detail::blocks_for(rows, 1), kThreads, 0, stream>>>(
      rows, cols, dy, x, gamma, save_mean, save_invstd, dx);
  KILN_CUDA_CHECK_LAUNCH();
  backward_params_kernel<<<detail::blocks_for(cols), kThreads, 0, stream>>>(
      rows, cols, dy, x, save_mean, save_invstd, dgamma, dbeta);
  KILN_CUDA_CHECK_LAUNCH();
}

}  // namespace kiln::cuda
