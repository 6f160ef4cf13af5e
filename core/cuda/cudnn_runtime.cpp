// Per-thread cuDNN handles and workspaces (declared in cudnn_runtime.h). Handles are pooled per
// device and the pool is never destroyed, like runtime.cpp's streams and cuBLAS handles: a
// thread's handles go back to the pool when it ends and serve the next thread, and nothing is
// torn down while the driver shuts down at exit.
#include "kiln/core/cuda/cudnn_runtime.h"

#include <cudnn.h>

#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kiln/core/cuda/cudnn_check.h"
#include "kiln/core/cuda/runtime.h"
#include "kiln/core/tensor.h"

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
  // f32 tensors of ceil(bytes / 4) elements; float alignment is all cuDNN asks of a workspace,
  // and the allocator gives far more.
  std::map<std::pair<int, cudaStream_t>, Tensor> workspaces;
  // Workspaces outgrown while a CUDA graph was being recorded: its replays keep using them.
  std::vector<Tensor> kept_for_graphs;
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
  if (bytes == 0) return nullptr;
  ThreadCudnn& state = thread_cudnn();
  Tensor& buffer = state.workspaces[{device, stream}];
  if (!buffer.defined() || buffer.nbytes() < bytes) {
    if (buffer.defined() && capture_scratch_sink() != nullptr)
      state.kept_for_graphs.push_back(std::move(buffer));
    buffer = Tensor();  // back to the cache first, so the larger block may reuse its memory
    const auto floats = static_cast<std::int64_t>((bytes + sizeof(float) - 1) / sizeof(float));
    buffer = Tensor::empty(Shape{floats}, DType::f32, Device::cuda(device));
  }
  return buffer.raw_data();
}

}  // namespace kiln::cuda
