// The launches of core/cuda/batch_norm.cu on raw device pointers, queued on `stream`; every launch
// is checked and none synchronises the host. core/cuda/batch_norm.cpp registers them in the op
// table.
#pragma once

#include "kiln/core/cuda/backend.h"

namespace kiln::cuda {

// batch_norm.cu
void batch_norm_forward_train(Index n, Index c, Index l, const float* x, const float* gamma,
                              const float* beta, float momentum, float eps, float* running_mean,
                              float* running_var, float* y, float* save_mean, float* save_invstd,
                              cudaStream_t stream);
void batch_norm_forward_eval(Index n, Index c, Index l, const float* x, const float* gamma,
                             const float* beta, const float* running_mean, const float* running_var,
                             float eps, float* y, cudaStream_t stream);
void batch_norm_backward(Index n, Index c, Index l, const float* x, const float* dy,
                         const float* gamma, const float* save_mean, const float* save_invstd,
                         float* dx, float* dgamma, float* dbeta, cudaStream_t stream);

}  // namespace kiln::cuda
