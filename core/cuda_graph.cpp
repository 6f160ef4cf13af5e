// CudaGraph over the device runtime's capture calls (core/device_runtime.h); without a CUDA
// runtime (a CPU-only build) capture and replay throw "built without CUDA".
#include "kiln/core/cuda_graph.h"

#include "kiln/core/device_runtime.h"
#include "kiln/core/error.h"

namespace kiln {

CudaGraph::~CudaGraph() { reset(); }

void CudaGraph::capture(Device device, const std::function<void()>& work) {
  DeviceRuntime& runtime = device_runtime(Device::Kind::cuda, "CudaGraph::capture");
  KILN_CHECK(device.is_cuda(), "CudaGraph: capture needs a CUDA device, found {}", device.str());
  reset();
  device_ = device;
  runtime.set_device(device.index());
  void* stream = runtime.current_stream(device.index());
  stream_ = stream;
  pool_ = runtime.begin_capture(stream, &scratch_blocks_, device.index());
  try {
    work();
  } catch (...) {
    runtime.end_capture(stream, /*failed=*/true);
    reset();  // nothing recorded ran: the blocks can go back at once
    throw;
  }
  exec_ = runtime.end_capture(stream, /*failed=*/false);
}

void CudaGraph::replay() {
  DeviceRuntime& runtime = device_runtime(Device::Kind::cuda, "CudaGraph::replay");
  KILN_CHECK(exec_ != nullptr, "CudaGraph: replay before a capture");
  runtime.set_device(device_.index());
  runtime.launch_graph(exec_, stream_);
}

void CudaGraph::reset() {
  // Nothing captured (always so in a build without a CUDA runtime): nothing to give back.
  if (exec_ == nullptr && scratch_blocks_.empty() && pool_ == CachingAllocator::kSharedPool) return;
  DeviceRuntime& runtime = *find_device_runtime(Device::Kind::cuda);
  if (exec_ != nullptr) {
    runtime.destroy_graph(exec_);
    exec_ = nullptr;
  }
  if (scratch_blocks_.empty() && pool_ == CachingAllocator::kSharedPool) return;
  runtime.release_graph_memory(device_.index(), scratch_blocks_, pool_);
  scratch_blocks_.clear();
  pool_ = CachingAllocator::kSharedPool;
}

}  // namespace kiln
