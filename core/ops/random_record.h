// The random fills' records, filled by check() (core/ops/random.cpp) and taken by the CPU bodies
// (core/cpu/random.cpp) and the CUDA launches (core/cuda/random.cu): x is n floats, element i
// drawn from Philox (seed, offset + i).
#pragma once

#include "kiln/core/op_record.h"

namespace kiln::rec {

struct Uniform {
  Index n;
  std::uint64_t seed;
  std::uint64_t offset;
  float low;
  float high;
  float* x;  // "="
};

struct Normal {
  Index n;
  std::uint64_t seed;
  std::uint64_t offset;
  float mean;
  float stddev;
  float* x;  // "="
};

}  // namespace kiln::rec

namespace kiln::cuda {
void uniform(const rec::Uniform& o, cudaStream_t stream);
void normal(const rec::Normal& o, cudaStream_t stream);
}  // namespace kiln::cuda
