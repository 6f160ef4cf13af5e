// The dropout op's record, filled by check() (core/ops/dropout.cpp) and taken by the CPU body
// (core/cpu/dropout.cpp) and the CUDA launch (core/cuda/dropout.cu): x, y and mask are n floats;
// element i keeps or drops by Philox draw (seed, offset + i). dropout_backward is a composite.
#pragma once

#include "kiln/core/op_record.h"

namespace kiln::rec {

struct DropoutForward {
  Index n;
  std::uint64_t seed;
  std::uint64_t offset;
  float p;
  float scale;  // 1 / (1 - p), or 0 when p is 1
  const float* x;
  float* y;     // "="
  float* mask;  // "=": 0 or scale
};

}  // namespace kiln::rec

namespace kiln::cuda {
void dropout_forward(const rec::DropoutForward& o, cudaStream_t stream);
}  // namespace kiln::cuda
