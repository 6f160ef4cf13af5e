// The softmax ops' records, filled by check() (core/ops/softmax.cpp) and taken by the CPU bodies
// (core/cpu/softmax.cpp) and the CUDA launches (core/cuda/softmax.cu): x, y, logits, probs and
// dlogits are (rows, cols); labels, losses and counted (rows).
#pragma once

#include <cstdint>

#include "kiln/core/op_record.h"

namespace kiln::rec {

// softmax, or log_softmax when log.
struct Softmax {
  Index rows, cols;
  const float* x;
  float* y;  // "="
  bool log;
};

struct SoftmaxCrossEntropyForward {
  Index rows, cols;
  const float* logits;
  const std::int32_t* labels;
  float label_smoothing;
  float* probs;   // "="
  float* losses;  // "="
  std::int32_t ignore_index;
  float* counted;  // null without an ignore index, else 1 or 0 per row
};

struct SoftmaxCrossEntropyBackward {
  Index rows, cols;
  const float* probs;
  const std::int32_t* labels;
  float grad_scale;
  float label_smoothing;
  std::int32_t ignore_index;
  const float* divisor;  // null, or one float on the device that grad_scale is divided by
  float* dlogits;        // "="
};

}  // namespace kiln::rec

namespace kiln::cuda {
void softmax(const rec::Softmax& o, cudaStream_t stream);
void softmax_cross_entropy_forward(const rec::SoftmaxCrossEntropyForward& o, cudaStream_t stream);
void softmax_cross_entropy_backward(const rec::SoftmaxCrossEntropyBackward& o, cudaStream_t stream);
}  // namespace kiln::cuda
