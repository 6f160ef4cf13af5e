// The launches of core/cuda/conv2d.cu on raw device pointers, queued on `stream`; every launch
// is checked and none synchronises the host. core/cuda/conv2d.cpp registers them in the op table.
#pragma once

#include "kiln/core/cuda/backend.h"
#include "kiln/core/window2d.h"

namespace kiln::cuda {

// conv2d.cu — cuDNN (deterministic fp32 algorithms, no TF32). Same contract as the CPU's.
void conv2d_forward(const Window2d& g, const float* x, const float* w, const float* bias, float* y,
                    cudaStream_t stream);
void conv2d_backward_data(const Window2d& g, const float* dy, const float* w, float* dx,
                          cudaStream_t stream);
void conv2d_backward_filter(const Window2d& g, const float* x, const float* dy, float* dw,
                            float* dbias, cudaStream_t stream);

}  // namespace kiln::cuda
