// The elementwise ops' records, filled by check() (core/ops/elementwise.cpp) and taken by the CPU
// bodies (core/cpu/elementwise.cpp) and the CUDA launches (core/cuda/elementwise.cu): every tensor
// is n contiguous elements; out may alias a or b.
#pragma once

#include "kiln/core/op_kinds.h"
#include "kiln/core/op_record.h"

namespace kiln::rec {

struct Binary {
  BinaryOp f;
  Index n;
  const float* a;
  const float* b;
  float* out;  // "="
};

struct Scale {
  Index n;
  float alpha;
  float* x;  // "*= alpha"
};

struct Axpy {
  Index n;
  float alpha;
  const float* x;
  float* y;  // "+= alpha * x"
};

// Exactly one of x and xi is set, by x's dtype; for xi, value is an integer (check() makes sure).
struct Fill {
  Index n;
  float value;
  float* x;          // float32
  std::int32_t* xi;  // int32
};

}  // namespace kiln::rec

namespace kiln::cuda {
void binary(const rec::Binary& o, cudaStream_t stream);
void scale(const rec::Scale& o, cudaStream_t stream);
void axpy(const rec::Axpy& o, cudaStream_t stream);
void fill(const rec::Fill& o, cudaStream_t stream);
}  // namespace kiln::cuda
