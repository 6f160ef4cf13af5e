// The bias ops' records, filled by check() (core/ops/bias.cpp) and taken by the CPU bodies
// (core/cpu/bias.cpp) and the CUDA launches (core/cuda/bias.cu): y, dy (rows, cols); bias,
// dbias (cols).
#pragma once

#include "kiln/core/op_record.h"

namespace kiln::rec {

struct BiasAdd {
  Index rows, cols;
  const float* bias;
  float* y;  // "+="
};

struct BiasGrad {
  Index rows, cols;
  const float* dy;
  float* dbias;  // "+="
};

}  // namespace kiln::rec

namespace kiln::cuda {
void bias_add(const rec::BiasAdd& o, cudaStream_t stream);
void bias_grad(const rec::BiasGrad& o, cudaStream_t stream);
}  // namespace kiln::cuda
