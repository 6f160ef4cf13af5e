// The launches of core/cuda/pool2d.cu on raw device pointers, queued on `stream`; every launch
// is checked and none synchronises the host. core/cuda/pool2d.cpp registers them in the op table.
#pragma once

#include "kiln/core/cuda/backend.h"
#include "kiln/core/window2d.h"

namespace kiln::cuda {

// pool2d.cu — cuDNN pooling: its backward finds the maxima again from x and y (no argmax).
void max_pool2d_forward(const Window2d& g, const float* x, float* y, cudaStream_t stream);
void max_pool2d_backward(const Window2d& g, const float* x, const float* y, const float* dy,
                         float* dx, cudaStream_t stream);
void avg_pool2d_forward(const Window2d& g, const float* x, float* y, cudaStream_t stream);
void avg_pool2d_backward(const Window2d& g, const float* x, const float* y, const float* dy,
                         float* dx, cudaStream_t stream);

}  // namespace kiln::cuda
