// The launches of core/cuda/random.cu on raw device pointers, queued on `stream`; every launch
// is checked and none synchronises the host. core/cuda/random.cpp registers them in the op table.
#pragma once

#include "kiln/core/cuda/backend.h"

namespace kiln::cuda {

// random.cu
void uniform(Index n, std::uint64_t seed, std::uint64_t offset, float low, float high, float* x,
             cudaStream_t stream);
void normal(Index n, std::uint64_t seed, std::uint64_t offset, float mean, float stddev, float* x,
            cudaStream_t stream);

}  // namespace kiln::cuda
