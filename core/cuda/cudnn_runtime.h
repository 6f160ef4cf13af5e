// cuDNN as the CUDA bodies use it: the calling thread's cuDNN handle per device, and a scratch
// workspace per (thread, device, stream) from the caching allocator. Plain declarations with no
// fmt behind them, so .cu files include this header (unlike runtime.h).
#pragma once

#include <cstddef>

typedef struct CUstream_st* cudaStream_t;
typedef struct cudnnContext* cudnnHandle_t;

namespace kiln::cuda {

// The calling thread's cuDNN handle on `device` (current), bound to `stream`.
cudnnHandle_t cudnn_handle(int device, cudaStream_t stream);

// At least `bytes` of device memory for work queued on `stream`, the device's current stream
// (as the dispatchers pass it), valid until the next call for the same stream from this thread
// (nullptr for 0 bytes): the stream's library workspace (stream_workspace.h), which only grows,
// so steady-state steps allocate nothing, and which a recorded CUDA graph keeps for itself.
void* cudnn_workspace(int device, cudaStream_t stream, std::size_t bytes);

}  // namespace kiln::cuda
