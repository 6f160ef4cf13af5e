// The permute op's record, filled by check() (core/ops/permute.cpp) and taken by the CPU body
// (core/cpu/permute.cpp) and the CUDA launch (core/cuda/permute.cu): per output axis a < rank,
// size[a] is y's size and stride[a] x's stride of the axis it reads; y does not alias x.
#pragma once

#include "kiln/core/op_record.h"

namespace kiln::rec {

inline constexpr int kMaxPermuteRank = 6;

struct Permute {
  int rank;
  Index count;  // y's elements
  Index size[kMaxPermuteRank];
  Index stride[kMaxPermuteRank];
  const float* x;
  float* y;  // "=", contiguous
};

}  // namespace kiln::rec

namespace kiln::cuda {
void permute(const rec::Permute& o, cudaStream_t stream);
}  // namespace kiln::cuda
