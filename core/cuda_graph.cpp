// CudaGraph over the runtime's capture calls; in a build without CUDA every entry point throws.
#include "kiln/core/cuda_graph.h"

#include "kiln/core/error.h"

#if KILN_CUDA
#include "kiln/core/cuda/runtime.h"
#endif

namespace kiln {

CudaGraph::~CudaGraph() { reset(); }

#if KILN_CUDA

void CudaGraph::capture(Device device, const std::function<void()>& work) {
  KILN_CHECK(device.is_cuda(), "CudaGraph: capture needs a CUDA device, found {}", device.str());
  reset();
  device_ = device;
  cuda::set_device(device.index());
  cudaStream_t stream = cuda::current_stream(device.index());
  stream_ = stream;
  cuda::begin_capture(stream, &scratch_blocks_, device.index());
  pool_ = cuda::capture_serial();
  try {
    work();
  } catch (...) {
    cuda::end_capture(stream, /*failed=*/true);
    reset();  // nothing recorded ran: the blocks can go back at once
    throw;
  }
  exec_ = cuda::end_capture(stream);
}

void CudaGraph::replay() {
  KILN_CHECK(exec_ != nullptr, "CudaGraph: replay before a capture");
  cuda::set_device(device_.index());
  cuda::launch_graph(exec_, static_cast<cudaStream_t>(stream_));
}

void CudaGraph::reset() {
  if (exec_ != nullptr) {
    cuda::destroy_graph(exec_);
    exec_ = nullptr;
  }
  // Released in stream order: the allocator hands a block out again only behind the work
  // already queued on the stream it served, the last replay included.
  if (scratch_blocks_.empty() && pool_ == CachingAllocator::kSharedPool) return;
  CachingAllocator& allocator = cuda::device_allocator(device_.index());
  for (void* block : scratch_blocks_) allocator.release(block);
  scratch_blocks_.clear();
  // What the capture allocated, and what was freed while it ran, was held for the replays.
  allocator.release_pool(pool_);
  pool_ = CachingAllocator::kSharedPool;
}

#else

void CudaGraph::capture(Device, const std::function<void()>&) { detail::throw_built_without_cuda("CudaGraph::capture"); }
void CudaGraph::replay() { detail::throw_built_without_cuda("CudaGraph::replay"); }
void CudaGraph::reset() {}

#endif

}  // namespace kiln
