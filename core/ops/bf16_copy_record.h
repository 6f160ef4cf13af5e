// write_bf16_copy's record, filled by check() (core/ops/bf16_copy.cpp) and taken by the CPU body
// (core/cpu/bf16.cpp): x and out are n values; out holds bf16 bits. A CPU feature: no CUDA launch.
#pragma once

#include "kiln/core/op_record.h"

namespace kiln::rec {

struct WriteBf16Copy {
  Index n;
  const float* x;
  std::uint16_t* out;  // "=", x rounded to nearest even
};

}  // namespace kiln::rec
