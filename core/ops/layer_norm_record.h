// The layer_norm ops' records, filled by check() (core/ops/layer_norm.cpp) and taken by the CPU
// bodies (core/cpu/layer_norm.cpp) and the CUDA launches (core/cuda/layer_norm.cu). x, y, dy, dx
// are (rows, cols); gamma, beta, dgamma, dbeta (cols); save_mean, save_invstd (rows).
#pragma once

#include "kiln/core/op_record.h"

namespace kiln::rec {

struct LayerNormForward {
  Index rows, cols;
  const float* x;
  const float* gamma;
  const float* beta;
  float eps;
  float* y;  // "="
  float* save_mean;
  float* save_invstd;
};

struct LayerNormBackward {
  Index rows, cols;
  const float* dy;
  const float* x;
  const float* gamma;
  const float* save_mean;
  const float* save_invstd;
  float* dx;      // "="
  float* dgamma;  // "+="
  float* dbeta;   // "+="
};

}  // namespace kiln::rec

namespace kiln::cuda {
// Queued on `stream`, checked, never synchronising the host.
void layer_norm_forward(const rec::LayerNormForward& r, cudaStream_t stream);
void layer_norm_backward(const rec::LayerNormBackward& r, cudaStream_t stream);
}  // namespace kiln::cuda
