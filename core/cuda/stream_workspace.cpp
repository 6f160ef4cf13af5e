// The per-thread workspace blocks of stream_workspace.h and their hand-over to CUDA graphs.
#include "kiln/core/cuda/stream_workspace.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>

#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/context.h"
#include "kiln/core/log.h"

namespace kiln::cuda {

namespace {

struct Workspace {
  void* block = nullptr;
  std::size_t bytes = 0;
  std::uint64_t graph = 0;  // the capture (capture_serial) that owns the block; 0: this thread
};

struct ThreadWorkspaces {
  std::map<std::pair<int, cudaStream_t>, Workspace> by_stream;
  ~ThreadWorkspaces() {
    for (auto& [key, w] : by_stream)
      if (w.block != nullptr && w.graph == 0) device_allocator(key.first).release(w.block);
  }
};

ThreadWorkspaces& thread_workspaces() {
  thread_local ThreadWorkspaces state;
  return state;
}

}  // namespace

void* stream_workspace(int device, cudaStream_t stream, std::size_t bytes) {
  if (bytes == 0) return nullptr;
  Workspace& w = thread_workspaces().by_stream[{device, stream}];
  const std::uint64_t capture = capture_serial();
  if (w.block == nullptr || w.bytes < bytes || w.graph != capture) {
    // Ours goes back to the cache for this stream, in stream order behind the work that used it;
    // a graph's stays with the graph.
    if (w.block != nullptr && w.graph == 0) device_allocator(device).release(w.block);
    const std::size_t size = std::max(bytes, w.graph == capture ? w.bytes : std::size_t{0});
    w = Workspace{};
    w.block = device_allocator(device).allocate(size, stream);
    if (w.block == nullptr) KILN_CUDA_CHECK(cudaErrorMemoryAllocation);
    w.bytes = size;
    if (capture != 0) {
      capture_scratch_sink()->push_back(w.block);  // released by CudaGraph::reset
      w.graph = capture;
    }
  }
  return w.block;
}

}  // namespace kiln::cuda
