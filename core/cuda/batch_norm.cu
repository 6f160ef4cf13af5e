// CUDA batch normalisation over x viewed as (n, c, l). Training forward and backward give each
// channel one block that reduces its n·l values in double with detail::group_reduce (a fixed
// order: the same bits every run); the float expressions after the sums are the CPU's
// (core/cpu/batch_norm.cpp) term for term, with explicit fmas where both sides must round alike
// (the evaluation forward, elementwise, then matches the CPU to the bit).
#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/launch.cuh"
#include "kiln/core/ops/batch_norm_record.h"

namespace kiln::cuda {

namespace {

using detail::kThreads;
using detail::kWarp;

// Channel ch's k-th value (k in [0, n·l)) sits at (i·c + ch)·l + j with k = i·l + j.
__device__ __forceinline__ Index at(Index k, Index c, Index l, Index ch) {
  const Index i = k / l, j = k - i * l;
  return (i * c + ch) * l + j;
}

// One block per channel (grid-stride over channels; the loop is uniform over the block, as
// group_reduce's barriers need).
__global__ void train_forward_kernel(rec::BatchNormForwardTrain o) {
  const Index n = o.n, c = o.c, l = o.l, m = n * l;
  const float *x = o.x, *gamma = o.gamma, *beta = o.beta;
  const float momentum = o.momentum, eps = o.eps;
  float *running_mean = o.running_mean, *running_var = o.running_var, *y = o.y;
  float *save_mean = o.save_mean, *save_invstd = o.save_invstd;
  __shared__ double scratch[kThreads / kWarp];
  for (Index ch = blockIdx.x; ch < c; ch += gridDim.x) {
    double sum = 0.0;
    for (Index k = threadIdx.x; k < m; k += kThreads) sum += x[at(k, c, l, ch)];
    const double mean = detail::group_reduce<kThreads>(sum, detail::Add(), scratch) / m;
    double squares = 0.0;
    for (Index k = threadIdx.x; k < m; k += kThreads) {
      const double d = x[at(k, c, l, ch)] - mean;
      squares += d * d;
    }
    const double var = detail::group_reduce<kThreads>(squares, detail::Add(), scratch) / m;
    const float mean_f = static_cast<float>(mean);
    const float invstd = static_cast<float>(1.0 / sqrt(var + static_cast<double>(eps)));
    if (threadIdx.x == 0) {
      save_mean[ch] = mean_f;
      save_invstd[ch] = invstd;
      rec::update_running_statistics(momentum, mean_f, var, m, running_mean[ch], running_var[ch]);
    }
    const float scale = invstd * gamma[ch], shift = beta[ch];
    for (Index k = threadIdx.x; k < m; k += kThreads) {
      const Index e = at(k, c, l, ch);
      y[e] = fmaf(x[e] - mean_f, scale, shift);
    }
  }
}

__global__ void eval_forward_kernel(rec::BatchNormForwardEval o) {
  const Index c = o.c, l = o.l, total = o.n * c * l;
  const float *x = o.x, *gamma = o.gamma, *beta = o.beta;
  const float *running_mean = o.running_mean, *running_var = o.running_var;
  const float eps = o.eps;
  float* y = o.y;
  for (Index e = detail::grid_start(); e < total; e += detail::grid_stride()) {
    const Index ch = (e / l) % c;
    const float invstd = static_cast<float>(1.0 / sqrt(static_cast<double>(running_var[ch]) + eps));
    y[e] = fmaf(x[e] - running_mean[ch], invstd * gamma[ch], beta[ch]);
  }
}

// dbeta += sum dy, dgamma += sum dy·xhat, dx = gamma·invstd·(dy - mean(dy) - xhat·mean(dy·xhat)).
__global__ void backward_kernel(rec::BatchNormBackward o) {
  const Index n = o.n, c = o.c, l = o.l, m = n * l;
  const float *x = o.x, *dy = o.dy, *gamma = o.gamma;
  const float *save_mean = o.save_mean, *save_invstd = o.save_invstd;
  float *dx = o.dx, *dgamma = o.dgamma, *dbeta = o.dbeta;
  __shared__ double scratch[kThreads / kWarp];
  for (Index ch = blockIdx.x; ch < c; ch += gridDim.x) {
    const float mean = save_mean[ch], invstd = save_invstd[ch];
    double sum_dy = 0.0, sum_dy_xhat = 0.0;
    for (Index k = threadIdx.x; k < m; k += kThreads) {
      const Index e = at(k, c, l, ch);
      sum_dy += dy[e];
      sum_dy_xhat += static_cast<double>(dy[e]) * ((x[e] - mean) * invstd);
    }
    sum_dy = detail::group_reduce<kThreads>(sum_dy, detail::Add(), scratch);
    sum_dy_xhat = detail::group_reduce<kThreads>(sum_dy_xhat, detail::Add(), scratch);
    if (threadIdx.x == 0) {
      dbeta[ch] += static_cast<float>(sum_dy);
      dgamma[ch] += static_cast<float>(sum_dy_xhat);
    }
    const float mean_dy = static_cast<float>(sum_dy / static_cast<double>(m));
    const float mean_dy_xhat = static_cast<float>(sum_dy_xhat / static_cast<double>(m));
    const float scale = gamma[ch] * invstd;
    for (Index k = threadIdx.x; k < m; k += kThreads) {
      const Index e = at(k, c, l, ch);
      const float xhat = (x[e] - mean) * invstd;
      dx[e] = scale * (dy[e] - mean_dy - xhat * mean_dy_xhat);
    }
  }
}

}  // namespace

void batch_norm_forward_train(const rec::BatchNormForwardTrain& o, cudaStream_t stream) {
  if (o.n * o.c * o.l == 0) return;
  train_forward_kernel<<<detail::blocks_for(o.c, 1), kThreads, 0, stream>>>(o);
  KILN_CUDA_CHECK_LAUNCH();
}

void batch_norm_forward_eval(const rec::BatchNormForwardEval& o, cudaStream_t stream) {
  if (o.n * o.c * o.l == 0) return;
  eval_forward_kernel<<<detail::blocks_for(o.n * o.c * o.l), kThreads, 0, stream>>>(o);
  KILN_CUDA_CHECK_LAUNCH();
}

void batch_norm_backward(const rec::BatchNormBackward& o, cudaStream_t stream) {
  if (o.n * o.c * o.l == 0) return;
  backward_kernel<<<detail::blocks_for(o.c, 1), kThreads, 0, stream>>>(o);
  KILN_CUDA_CHECK_LAUNCH();
}

}  // namespace kiln::cuda
