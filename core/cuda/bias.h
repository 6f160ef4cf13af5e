// The launches of core/cuda/bias.cu on raw device pointers, queued on `stream`; every launch
// is checked and none synchronises the host. core/cuda/bias.cpp registers them in the op table.
#pragma once

#include "kiln/core/cuda/backend.h"

namespace kiln::cuda {

// bias.cu
void bias_add(Index rows, Index cols, const float* bias, float* y, cudaStream_t stream);
void bias_grad(Index rows, Index cols, const float* dy, float* dbias, cudaStream_t stream);

}  // namespace kiln::cuda
