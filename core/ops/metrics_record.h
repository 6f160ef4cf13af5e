// The count_correct op's record, filled by check() (core/ops/metrics.cpp) and taken by the CPU
// body (core/cpu/metrics.cpp) and the CUDA launch (core/cuda/metrics.cu): logits (rows, cols),
// labels (rows), correct one int32.
#pragma once

#include "kiln/core/op_record.h"

namespace kiln::rec {

struct CountCorrect {
  Index rows;
  Index cols;
  const float* logits;
  const std::int32_t* labels;
  std::int32_t* correct;  // "="
};

}  // namespace kiln::rec

namespace kiln::cuda {
void count_correct(const rec::CountCorrect& o, cudaStream_t stream);
}  // namespace kiln::cuda
