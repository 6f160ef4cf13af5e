// Per-thread cuDNN handles and workspaces (declared in cudnn_runtime.h). Handles are pooled per
// device and the pool is never destroyed, like runtime.cpp's streams and cuBLAS handles: a
// thread's handles go back to the pool when it ends and serve the next thread, and nothing is
// torn down while the driver shuts down at exit.
#include "kiln/core/cuda/cudnn_runtime.h"

#include <cudnn.h>

#include <mutex>
#include <unordered_map>
#include <vector>

#include "kiln/core/cuda/context.h"
#include "kiln/core/cuda/cudnn_check.h"
#include "kiln/core/cuda/stream_workspace.h"

namespace kiln::cuda {

namespace {

struct HandlePool {
  std::mutex mutex;
  std::unordered_map<int, std::vector<cudnnHandle_t>> free;
};
HandlePool& handle_pool() {
  static auto* pool = new HandlePool();  // never destroyed, see the file comment
  return *pool;
}

cudnnHandle_t take_handle(int device) {
  {
    HandlePool& pool = handle_pool();
    std::lock_guard lock(pool.mutex);
    auto& free = pool.free[device];
    if (!free.empty()) {
      cudnnHandle_t h = free.back();
      free.pop_back();
      return h;
    }
  }
  set_device(device);
  cudnnHandle_t handle = nullptr;
  KILN_CUDNN_CHECK(cudnnCreate(&handle));
  return handle;
}

struct ThreadCudnn {
  std::unordered_map<int, cudnnHandle_t> handles;
  ~ThreadCudnn() {
    HandlePool& pool = handle_pool();
    std::lock_guard lock(pool.mutex);
    for (auto [device, h] : handles) pool.free[device].push_back(h);
  }
};
ThreadCudnn& thread_cudnn() {
  thread_local ThreadCudnn state;
  return state;
}

}  // namespace

cudnnHandle_t cudnn_handle(int device, cudaStream_t stream) {
  ThreadCudnn& state = thread_cudnn();
  auto it = state.handles.find(device);
  if (it == state.handles.end()) it = state.handles.emplace(device, take_handle(device)).first;
  KILN_CUDNN_CHECK(cudnnSetStream(it->second, stream));
  return it->second;
}

void* cudnn_workspace(int device, cudaStream_t stream, std::size_t bytes) {
  return stream_workspace(device, stream, bytes);
}

}  // namespace kiln::cuda
