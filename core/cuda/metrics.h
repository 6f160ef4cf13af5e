// The launches of core/cuda/metrics.cu on raw device pointers, queued on `stream`; every launch
// is checked and none synchronises the host. core/cuda/metrics.cpp registers them in the op table.
#pragma once

#include "kiln/core/cuda/backend.h"

namespace kiln::cuda {

// metrics.cu
void count_correct(Index rows, Index cols, const float* logits, const std::int32_t* labels,
                   std::int32_t* correct, cudaStream_t stream);

}  // namespace kiln::cuda
