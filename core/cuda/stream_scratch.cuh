// StreamScratch: temporary device memory for one stream (partial sums of two-pass reductions),
// taken from the device's caching allocator and given back once the launches using it are
// queued. The allocator hands a block out again only on the stream it served, so stream order
// keeps the next user behind these kernels, and steady-state calls make no cudaMalloc. Inside a
// CUDA graph capture the block goes to the graph instead (core/cuda_graph.h).
#pragma once

#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/context.h"

namespace kiln::cuda {

class StreamScratch {
 public:
  StreamScratch(std::size_t bytes, cudaStream_t stream) {
    KILN_CUDA_CHECK(cudaGetDevice(&device_));
    ptr_ = device_allocator(device_).allocate(bytes, stream);
    if (ptr_ == nullptr) KILN_CUDA_CHECK(cudaErrorMemoryAllocation);
  }
  ~StreamScratch() {
    // Under a CUDA graph capture the recorded kernels use this block at every replay.
    if (std::vector<void*>* sink = capture_scratch_sink())
      sink->push_back(ptr_);
    else
      device_allocator(device_).release(ptr_);
  }
  StreamScratch(const StreamScratch&) = delete;
  StreamScratch& operator=(const StreamScratch&) = delete;
  void* get() const { return ptr_; }

 private:
  int device_ = 0;
  void* ptr_ = nullptr;
};

}  // namespace kiln::cuda
