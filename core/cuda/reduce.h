// The launches of core/cuda/reduce.cu on raw device pointers, queued on `stream`; every launch
// is checked and none synchronises the host. core/cuda/reduce.cpp registers them in the op table.
#pragma once

#include "kiln/core/cuda/backend.h"
#include "kiln/core/op_kinds.h"

namespace kiln::cuda {

// reduce.cu
void reduce(ReduceOp op, Index outer, Index n, Index inner, const float* x, float* out,
            cudaStream_t stream);
void argmax(Index outer, Index n, Index inner, const float* x, std::int32_t* out,
            cudaStream_t stream);
void sum_squares(Index n, const float* x, float* out, cudaStream_t stream);

}  // namespace kiln::cuda
