// What a CUDA launch header (core/cuda/<stem>.h) builds on: the index type and the stream type,
// declared as the CUDA runtime does. Kept free of fmt and of kiln's tensors: fmt 9 does not
// compile under nvcc in C++20, so .cu files see raw device pointers only, and each stem's
// core/cuda/<stem>.cpp registers the adapters from op to launch.
#pragma once

#include <cstdint>

typedef struct CUstream_st* cudaStream_t;  // as declared by the CUDA runtime

namespace kiln::cuda {
using Index = std::int64_t;
}  // namespace kiln::cuda
