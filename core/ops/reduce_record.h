// The reduction ops' records, filled by check() (core/ops/reduce.cpp) and taken by the CPU bodies
// (core/cpu/reduce.cpp) and the CUDA launches (core/cuda/reduce.cu): x viewed as (outer, n,
// inner) around the reduced axis, out as (outer, inner); n > 0 unless out is empty.
#pragma once

#include "kiln/core/op_kinds.h"
#include "kiln/core/op_record.h"

namespace kiln::rec {

struct Reduce {
  ReduceOp f;
  Index outer, n, inner;
  const float* x;
  float* out;  // "="
};

struct Argmax {
  Index outer, n, inner;
  const float* x;
  std::int32_t* out;  // "=", the first index of the maximum
};

struct SumSquares {
  Index n;
  const float* x;
  float* out;  // (1), "="
};

}  // namespace kiln::rec

namespace kiln::cuda {
void reduce(const rec::Reduce& o, cudaStream_t stream);
void argmax(const rec::Argmax& o, cudaStream_t stream);
void sum_squares(const rec::SumSquares& o, cudaStream_t stream);
}  // namespace kiln::cuda
