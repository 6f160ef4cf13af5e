// The launches of core/cuda/softmax.cu on raw device pointers, queued on `stream`; every launch
// is checked and none synchronises the host. core/cuda/softmax.cpp registers them in the op table.
#pragma once

#include "kiln/core/cuda/backend.h"

namespace kiln::cuda {

// softmax.cu — an out-of-range label gives that row a NaN loss.
void softmax(Index rows, Index cols, const float* x, float* y, bool log, cudaStream_t stream);
void softmax_cross_entropy_forward(Index rows, Index cols, const float* logits,
                                   const std::int32_t* labels, float label_smoothing,
                                   float* probs, float* losses, std::int32_t ignore_index,
                                   float* counted, cudaStream_t stream);
void softmax_cross_entropy_backward(Index rows, Index cols, const float* probs,
                                    const std::int32_t* labels, float grad_scale,
                                    float label_smoothing, std::int32_t ignore_index,
                                    const float* divisor, float* dlogits, cudaStream_t stream);

}  // namespace kiln::cuda
