// What an op's record (core/ops/<stem>_record.h) builds on. A record is the op's operands as
// check() hands them to every kernel: raw pointers, sizes and scalars, so that the host compiler
// and nvcc both read it (fmt 9, under kiln's tensors, does not build under nvcc in C++20). Only
// fixed-width integers, raw pointers, scalars and the plain headers beside this one go in it.
#pragma once

#include <cstdint>

typedef struct CUstream_st* cudaStream_t;  // as declared by the CUDA runtime

namespace kiln::rec {
using Index = std::int64_t;
}  // namespace kiln::rec

namespace kiln::cuda {
using Index = std::int64_t;  // the launches' (core/cuda/*.cu), declared beside each record
}  // namespace kiln::cuda
