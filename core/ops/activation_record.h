// The activation ops' records, filled by check() (core/ops/activation.cpp) and taken by the CPU
// bodies (core/cpu/activation.cpp) and the CUDA launches (core/cuda/activation.cu): every
// tensor is n floats; dx may alias dy.
#pragma once

#include "kiln/core/op_kinds.h"
#include "kiln/core/op_record.h"

namespace kiln::rec {

struct ActivationForward {
  Activation f;
  Index n;
  const float* x;
  float* y;     // "="
  float alpha;  // LeakyReLU's negative slope
};

struct ActivationBackward {
  Activation f;
  Index n;
  const float* x;
  const float* y;
  const float* dy;
  float* dx;  // "="
  float alpha;
};

}  // namespace kiln::rec

namespace kiln::cuda {
void activation_forward(const rec::ActivationForward& o, cudaStream_t stream);
void activation_backward(const rec::ActivationBackward& o, cudaStream_t stream);
}  // namespace kiln::cuda
