// CUDA layer_norm over (rows, cols): one block per row sums in double with detail::group_reduce
// (a fixed order: the same bits every run), then the CPU reference's float expressions
// (core/cpu/layer_norm.cpp) term for term. The per-feature gradients (dgamma, dbeta) are the
// CPU's column sums over the rows in double in row order, so they have the CPU's bits: each
// product dy * xhat of two floats is exact in double, so only the order of the adds could differ.
#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/launch.cuh"
#include "kiln/core/ops/layer_norm_record.h"

namespace kiln::cuda {

namespace {

using detail::kThreads;
using detail::kWarp;

// Grid-stride over rows; the loop is uniform over the block, as group_reduce's barriers need.
__global__ void forward_kernel(rec::LayerNormForward o) {
  const Index rows = o.rows, cols = o.cols;
  const float *x = o.x, *gamma = o.gamma, *beta = o.beta;
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
    const float invstd = static_cast<float>(1.0 / sqrt(var + static_cast<double>(o.eps)));
    if (threadIdx.x == 0) {
      o.save_mean[r] = mean_f;
      o.save_invstd[r] = invstd;
    }
    float* yr = o.y + r * cols;
    for (Index c = threadIdx.x; c < cols; c += kThreads)
      yr[c] = fmaf(__fmul_rn(xr[c] - mean_f, invstd), gamma[c], beta[c]);
  }
}

__global__ void backward_data_kernel(rec::LayerNormBackward o) {
  const Index rows = o.rows, cols = o.cols;
  const float *dy = o.dy, *x = o.x, *gamma = o.gamma;
  __shared__ double scratch[kThreads / kWarp];
  for (Index r = blockIdx.x; r < rows; r += gridDim.x) {
    const float* xr = x + r * cols;
    const float* dyr = dy + r * cols;
    const float mean = o.save_mean[r], invstd = o.save_invstd[r];
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
    float* dxr = o.dx + r * cols;
    for (Index c = threadIdx.x; c < cols; c += kThreads) {
      const float xhat = __fmul_rn(xr[c] - mean, invstd);
      const float g = __fmul_rn(dyr[c], gamma[c]);
      dxr[c] = __fmul_rn(invstd, fmaf(-xhat, mean_gx, __fsub_rn(g, mean_g)));
    }
  }
}

// dgamma and dbeta: one block per 16 columns: its first warp adds the rows in order while the
// other seven stage the next 128 rows' dy and xhat in shared memory, so that the chain of adds,
// not the loads, sets the time: one add after another per column, `rows` long (an estimate, not
// yet measured: about 0.1 ms at 16k rows on an H100, where one thread per column took
// milliseconds).
constexpr int kParamCols = 16;   // columns per block: half a warp adds, one lane per column
constexpr int kParamRows = 128;  // rows staged per step
constexpr int kLoaders = kThreads - kWarp;
constexpr int kLoaderRowsPerPass = kLoaders / kParamCols;  // 14 rows of the tile per pass
constexpr int kLoaderPasses = (kParamRows + kLoaderRowsPerPass - 1) / kLoaderRowsPerPass;

// Grid-stride over strips of kParamCols columns; every loop is uniform over the block, as its
// barriers need. Two buffers: the adders read step s's tile from one while the loaders fill
// step s + 1's in the other; the barrier ending each step hands them over.
__global__ void __launch_bounds__(kThreads) backward_params_kernel(rec::LayerNormBackward o) {
  const Index rows = o.rows, cols = o.cols;
  const float *dy = o.dy, *x = o.x, *save_mean = o.save_mean, *save_invstd = o.save_invstd;
  __shared__ float staged_dy[2][kParamRows][kParamCols];
  __shared__ float staged_xhat[2][kParamRows][kParamCols];
  const int t = threadIdx.x;
  const bool loader = t >= kWarp;
  const int column = (t - kWarp) % kParamCols, first = (t - kWarp) / kParamCols;
  const Index tiles = (rows + kParamRows - 1) / kParamRows;
  for (Index c0 = static_cast<Index>(blockIdx.x) * kParamCols; c0 < cols;
       c0 += static_cast<Index>(gridDim.x) * kParamCols) {
    // A loader loads all its values of the tile, then stores them: the loads fly together.
    auto stage = [&](Index tile, int buffer) {
      float dys[kLoaderPasses], xhats[kLoaderPasses];
      const Index c = c0 + column;
#pragma unroll
      for (int p = 0; p < kLoaderPasses; ++p) {
        const int i = first + p * kLoaderRowsPerPass;
        const Index r = tile * kParamRows + i;
        dys[p] = xhats[p] = 0.0f;
        if (i < kParamRows && r < rows && c < cols) {
          dys[p] = dy[r * cols + c];
          xhats[p] = __fmul_rn(x[r * cols + c] - save_mean[r], save_invstd[r]);
        }
      }
#pragma unroll
      for (int p = 0; p < kLoaderPasses; ++p) {
        const int i = first + p * kLoaderRowsPerPass;
        if (i < kParamRows) {
          staged_dy[buffer][i][column] = dys[p];
          staged_xhat[buffer][i][column] = xhats[p];
        }
      }
    };
    if (loader) stage(0, 0);
    __syncthreads();
    const Index c = c0 + t;
    const bool adder = t < kParamCols && c < cols;
    double sum_dyx = 0.0, sum_dy = 0.0;
    for (Index tile = 0; tile < tiles; ++tile) {
      const int buffer = static_cast<int>(tile & 1);
      if (adder) {
        const Index left = rows - tile * kParamRows;
        const int n = left < kParamRows ? static_cast<int>(left) : kParamRows;
        // The CPU's order: row after row, in double (dy * xhat is exact there).
        for (int i = 0; i < n; ++i) {
          const float d = staged_dy[buffer][i][t];
          sum_dyx += static_cast<double>(d) * staged_xhat[buffer][i][t];
          sum_dy += d;
        }
      } else if (loader && tile + 1 < tiles) {
        stage(tile + 1, buffer ^ 1);
      }
      __syncthreads();
    }
    if (adder) {
      o.dgamma[c] += static_cast<float>(sum_dyx);
      o.dbeta[c] += static_cast<float>(sum_dy);
    }
  }
}

}  // namespace

void layer_norm_forward(const rec::LayerNormForward& o, cudaStream_t stream) {
  if (o.rows == 0) return;
  forward_kernel<<<detail::blocks_for(o.rows, 1), kThreads, 0, stream>>>(o);
  KILN_CUDA_CHECK_LAUNCH();
}

void layer_norm_backward(const rec::LayerNormBackward& o, cudaStream_t stream) {
  if (o.rows == 0) return;
  backward_data_kernel<<<detail::blocks_for(o.rows, 1), kThreads, 0, stream>>>(o);
  KILN_CUDA_CHECK_LAUNCH();
  backward_params_kernel<<<detail::blocks_for(o.cols, kParamCols), kThreads, 0, stream>>>(o);
  KILN_CUDA_CHECK_LAUNCH();
}

}  // namespace kiln::cuda
