// The launches of core/cuda/activation.cu on raw device pointers, queued on `stream`; every launch
// is checked and none synchronises the host. core/cuda/activation.cpp registers them in the op table.
#pragma once

#include "kiln/core/cuda/backend.h"
#include "kiln/core/op_kinds.h"

namespace kiln::cuda {

// activation.cu
void activation_forward(Activation f, Index n, const float* x, float* y, float alpha,
                        cudaStream_t stream);
void activation_backward(Activation f, Index n, const float* x, const float* y, const float* dy,
                         float* dx, float alpha, cudaStream_t stream);

}  // namespace kiln::cuda
