// The launches of core/cuda/causal_softmax.cu on raw device pointers, queued on `stream`;
// checked, never synchronising the host. core/cuda/causal_softmax.cpp registers them. x, y, dy,
// dx: rows of (T, T) matrices, rows = matrices * T.
#pragma once

#include "kiln/core/cuda/backend.h"

namespace kiln::cuda {

void causal_softmax_forward(Index rows, Index t, const float* x, float* y, float scale,
                            cudaStream_t stream);
void causal_softmax_backward(Index rows, Index t, const float* y, const float* dy, float* dx,
                             float scale, cudaStream_t stream);

}  // namespace kiln::cuda
