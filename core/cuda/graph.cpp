// CUDA graph capture and replay (core/cuda_graph.h). Relaxed capture mode: the loader's threads
// keep copying and synchronising their own streams while this thread records its stream.
#include <cuda_runtime_api.h>

#include <atomic>

#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/context.h"
#include "kiln/core/log.h"

namespace kiln::cuda {

namespace {
thread_local std::vector<void*>* t_scratch_sink = nullptr;
thread_local std::uint64_t t_capture_serial = 0;
thread_local int t_capture_device = -1;
std::atomic<int> g_captures{0};
std::atomic<std::uint64_t> g_serials{0};
}  // namespace

std::vector<void*>* capture_scratch_sink() { return t_scratch_sink; }
std::uint64_t capture_serial() { return t_capture_serial; }
std::uint64_t capture_pool(int device) {
  return device == t_capture_device ? t_capture_serial : CachingAllocator::kSharedPool;
}
bool capture_in_progress() { return g_captures.load() > 0; }

void begin_capture(cudaStream_t stream, std::vector<void*>* scratch_sink, int device) {
  KILN_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
  t_scratch_sink = scratch_sink;
  t_capture_serial = ++g_serials;
  t_capture_device = device;
  ++g_captures;
}

void* end_capture(cudaStream_t stream, bool failed) {
  t_scratch_sink = nullptr;
  t_capture_serial = 0;
  t_capture_device = -1;
  --g_captures;
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  if (failed) {  // the work's own error is the one to report
    if (graph != nullptr) (void)cudaGraphDestroy(graph);
    (void)cudaGetLastError();
    return nullptr;
  }
  KILN_CUDA_CHECK(ended);
  cudaGraphExec_t exec = nullptr;
  const cudaError_t instantiated = cudaGraphInstantiate(&exec, graph, 0);
  (void)cudaGraphDestroy(graph);  // the executable graph is independent of it
  KILN_CUDA_CHECK(instantiated);
  return exec;
}

void launch_graph(void* exec, cudaStream_t stream) {
  KILN_CUDA_CHECK(cudaGraphLaunch(static_cast<cudaGraphExec_t>(exec), stream));
}

void destroy_graph(void* exec) {
  const cudaError_t status = cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(exec));
  if (status != cudaSuccess) {
    log::warn("cudaGraphExecDestroy: {}", cudaGetErrorString(status));
    (void)cudaGetLastError();  // logged: not for the next launch check to report
  }
}

}  // namespace kiln::cuda
