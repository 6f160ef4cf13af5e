// What a CPU kernel file (core/cpu/<stem>.cpp) builds on: the index type of the raw loops and
// the op table its kernels register into. The bodies take the op's record (contiguous
// float32/int32 buffers already checked by the op's check()) and register with on_record.
#pragma once

#include <cstdint>

#include "kiln/core/op_table.h"

namespace kiln::cpu {
using Index = std::int64_t;
}  // namespace kiln::cpu
