// The causal_softmax ops' records, filled by check() (core/ops/causal_softmax.cpp) and taken by
// the CPU bodies (core/cpu/causal_softmax.cpp) and the CUDA launches
// (core/cuda/causal_softmax.cu): x, y, dy, dx are `rows` rows of t, row i of each (t, t) matrix
// keeping its first i + 1 entries.
#pragma once

#include "kiln/core/op_record.h"

namespace kiln::rec {

struct CausalSoftmaxForward {
  Index rows, t;
  const float* x;
  float* y;  // "="
  float scale;
};

struct CausalSoftmaxBackward {
  Index rows, t;
  const float* y;
  const float* dy;
  float* dx;  // "="
  float scale;
};

}  // namespace kiln::rec

namespace kiln::cuda {
void causal_softmax_forward(const rec::CausalSoftmaxForward& o, cudaStream_t stream);
void causal_softmax_backward(const rec::CausalSoftmaxBackward& o, cudaStream_t stream);
}  // namespace kiln::cuda
