// The launches of core/cuda/elementwise.cu on raw device pointers, queued on `stream`; every launch
// is checked and none synchronises the host. core/cuda/elementwise.cpp registers them in the op table.
#pragma once

#include "kiln/core/cuda/backend.h"
#include "kiln/core/op_kinds.h"

namespace kiln::cuda {

// elementwise.cu
void binary(BinaryOp op, Index n, const float* a, const float* b, float* out, cudaStream_t stream);
void scale(Index n, float alpha, float* x, cudaStream_t stream);
void axpy(Index n, float alpha, const float* x, float* y, cudaStream_t stream);
void fill(Index n, float value, float* x, cudaStream_t stream);
void fill(Index n, std::int32_t value, std::int32_t* x, cudaStream_t stream);

}  // namespace kiln::cuda
