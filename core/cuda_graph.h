// CudaGraph: a piece of GPU work recorded once (CUDA stream capture) and then replayed with one
// launch, so a step of many small kernels costs one launch of host time instead of one per
// kernel. Replays read and write the very addresses the capture saw: inputs must be copied into
// the same tensors before each replay, and nothing the work touches may be reallocated while the
// graph is kept (reset() it, then capture again).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "kiln/core/device.h"

namespace kiln {

// Scratch memory that kernels take from the caching allocator during the capture belongs to the
// graph until reset(), so no later allocation can receive a block a replay still writes; so are
// the tensors the work allocates and frees (a private pool of the device allocator, as PyTorch's
// graph pools), and any tensor freed while the capture runs.
class CudaGraph {
 public:
  CudaGraph() = default;
  ~CudaGraph();
  CudaGraph(const CudaGraph&) = delete;
  CudaGraph& operator=(const CudaGraph&) = delete;

  // Runs `work` once under stream capture on `device`'s current stream (its kernels are recorded,
  // not run) and instantiates the graph. Every buffer the work uses must already exist: run it
  // once without capture first. Throws kiln::Error naming the CUDA error when the work does
  // something a capture cannot record (a synchronous copy, a host read of a device value), and
  // kiln's out-of-memory error when the device is full (while any thread records, the device
  // allocator keeps its cache rather than free it: cudaFree would break the recording).
  void capture(Device device, const std::function<void()>& work);
  // Queues the recorded work on the stream it was captured from (the scratch blocks it holds are
  // stream-ordered there).
  void replay();
  bool captured() const { return exec_ != nullptr; }
  // Frees the graph and the scratch blocks it holds (after the work queued before, in order).
  void reset();

 private:
  Device device_ = Device::cpu();
  void* exec_ = nullptr;               // cudaGraphExec_t
  void* stream_ = nullptr;             // cudaStream_t of the capture
  std::vector<void*> scratch_blocks_;  // caching-allocator blocks kept for the replays
  std::uint64_t pool_ = 0;             // the device allocator's private pool of the capture
};

}  // namespace kiln
