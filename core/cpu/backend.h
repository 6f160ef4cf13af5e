// What a CPU kernel file (core/cpu/<stem>.cpp) builds on: the index type of the raw loops and
// the op table its kernels register into. The raw bodies take contiguous float32/int32
// buffers already checked by the op's check(); each file registers adapters from op to body.
#pragma once

#include <cstdint>

#include "kiln/core/op_table.h"

namespace kiln::cpu {
using Index = std::int64_t;
}  // namespace kiln::cpu
