// The launches of core/cuda/dropout.cu on raw device pointers, queued on `stream`; every launch
// is checked and none synchronises the host. core/cuda/dropout.cpp registers them in the op table.
#pragma once

#include "kiln/core/cuda/backend.h"

namespace kiln::cuda {

// dropout.cu
void dropout_forward(Index n, std::uint64_t seed, std::uint64_t offset, float p, float scale,
                     const float* x, float* y, float* mask, cudaStream_t stream);

}  // namespace kiln::cuda
