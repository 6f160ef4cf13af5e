// Library workspaces (cuBLAS, cuBLASLt, cuDNN): one block of device memory per (thread, device,
// stream), reused by every call queued there (calls on one stream never overlap), grown when a call
// needs more. A thread's own blocks go back to the caching allocator when the thread ends. Plain
// declarations: .cu files include it.
#pragma once

#include <cstddef>

typedef struct CUstream_st* cudaStream_t;

namespace kiln::cuda {

// What NVIDIA suggests for cuBLAS and cuBLASLt on Hopper.
inline constexpr std::size_t kMatmulWorkspaceBytes = std::size_t{32} << 20;

// CUDA graphs: a block used while a graph is recorded belongs to that graph from then on
// (CudaGraph::reset gives it back), so later eager work, which may outgrow or replace it, takes a
// block of its own and never frees memory a replay still uses.
// At least `bytes` (nullptr for 0) for work queued on `stream` of `device`, valid until the next
// call for the same stream from this thread; throws kiln::Error when the device is full.
void* stream_workspace(int device, cudaStream_t stream, std::size_t bytes);

}  // namespace kiln::cuda
