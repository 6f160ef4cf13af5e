// The launches of core/cuda/layer_norm.cu on raw device pointers, queued on `stream`; every launch
// is checked and none synchronises the host. core/cuda/layer_norm.cpp registers them in the op
// table. x, y, dy, dx are (rows, cols); gamma, beta, dgamma, dbeta (cols); the statistics (rows).
#pragma once

#include "kiln/core/cuda/backend.h"

namespace kiln::cuda {

void layer_norm_forward(Index rows, Index cols, const float* x, const float* gamma,
                        const float* beta, float eps, float* y, float* save_mean,
                        float* save_invstd, cudaStream_t stream);
// dx "="; dgamma, dbeta "+=".
void layer_norm_backward(Index rows, Index cols, const float* dy, const float* x,
                         const float* gamma, const float* save_mean, const float* save_invstd,
                         float* dx, float* dgamma, float* dbeta, cudaStream_t stream);

}  // namespace kiln::cuda
