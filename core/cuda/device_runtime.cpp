// The CUDA device runtime: the interface of core/device_runtime.h over the CUDA runtime calls of
// core/cuda/context.cpp (devices, memory, streams, events, copies) and core/cuda/graph.cpp
// (capture), registered at load time. This file is compiled into CUDA builds only, so a CPU-only
// build registers no CUDA runtime.
#include "kiln/core/device_runtime.h"

#include "kiln/core/cuda/context.h"
#include "kiln/core/error.h"
#include "kiln/core/memory.h"

namespace kiln::cuda {

namespace {

cudaStream_t as_stream(void* stream) { return static_cast<cudaStream_t>(stream); }

class CudaRuntime final : public DeviceRuntime {
 public:
  int device_count() override { return cuda::device_count(); }
  std::string unavailable_reason() override { return cuda::unavailable_reason(); }
  void check_device(int device) override { cuda::check_device(device); }
  void set_device(int device) override { cuda::set_device(device); }
  std::string device_name(int device) override { return cuda::device_name(device); }
  std::string pci_bus_id(int device) override { return cuda::pci_bus_id(device); }
  DeviceMemoryInfo memory_info(int device) override { return cuda::memory_info(device); }

  void* allocate(int device, std::size_t bytes) override {
    cuda::check_device(device);
    cuda::set_device(device);
    return device_allocator(device).allocate(bytes, cuda::current_stream(device));
  }
  void release(int device, void* ptr, std::size_t) override {
    device_allocator(device).release(ptr);
  }
  MemoryStats memory_stats(int device) override { return device_allocator(device).stats(); }
  void reset_peak_memory_stats(int device) override { device_allocator(device).reset_peak(); }
  void empty_cache(int device) override { device_allocator(device).empty_cache(); }
  void* pinned_allocate(std::size_t bytes) override { return cuda::pinned_allocate(bytes); }
  void pinned_release(void* ptr) override { cuda::pinned_release(ptr); }
  MemoryStats pinned_stats() override { return cuda::pinned_stats(); }

  StreamHandle current_stream(int device) override { return cuda::current_stream(device); }
  void set_current_stream(int device, StreamHandle stream) override {
    cuda::set_current_stream(device, as_stream(stream));
  }
  StreamHandle create_stream(int device) override { return cuda::create_stream(device); }
  void destroy_stream(StreamHandle stream) noexcept override {
    cuda::destroy_stream(as_stream(stream));
  }
  void synchronize_stream(StreamHandle stream) override {
    cuda::synchronize_stream(as_stream(stream));
  }
  void stream_wait_event(StreamHandle stream, EventHandle event) override {
    cuda::stream_wait_event(as_stream(stream), event);
  }
  void wait_for_device(StreamHandle stream, int device) override {
    cuda::wait_for_device(as_stream(stream), device);
  }
  void record_stream(int device, const void* ptr, StreamHandle stream) override {
    cuda::record_stream(device, ptr, as_stream(stream));
  }
  void record_use_from_device(int device, const void* ptr, StreamHandle stream,
                              int stream_device) override {
    cuda::record_use_from_device(device, ptr, as_stream(stream), stream_device);
  }

  EventHandle create_event(int device) override { return cuda::create_event(device); }
  void destroy_event(EventHandle event) noexcept override { cuda::destroy_event(event); }
  void record_event(EventHandle event, StreamHandle stream) override {
    cuda::record_event(event, as_stream(stream));
  }
  void synchronize_event(int device, EventHandle event) override {
    // Loader workers wait here on threads that never chose a device: without this the runtime
    // would create a context on device 0 for each of them, memory taken from every rank's GPU 0.
    cuda::set_device(device);
    cuda::synchronize_event(event);
  }
  bool query_event(EventHandle event) override { return cuda::query_event(event); }
  double event_elapsed_ms(EventHandle start, EventHandle end) override {
    return cuda::event_elapsed_ms(start, end);
  }

  void copy_bytes_async(void* dst, const void* src, std::size_t bytes,
                        StreamHandle stream) override {
    cuda::copy_bytes_async(dst, src, bytes, as_stream(stream));
  }

  CachingAllocator::PoolId begin_capture(StreamHandle stream, std::vector<void*>* scratch_sink,
                                         int device) override {
    cuda::begin_capture(as_stream(stream), scratch_sink, device);
    return capture_serial();
  }
  GraphHandle end_capture(StreamHandle stream, bool failed) override {
    return cuda::end_capture(as_stream(stream), failed);
  }
  void launch_graph(GraphHandle graph, StreamHandle stream) override {
    cuda::launch_graph(graph, as_stream(stream));
  }
  void destroy_graph(GraphHandle graph) noexcept override { cuda::destroy_graph(graph); }
  void release_graph_memory(int device, const std::vector<void*>& scratch_blocks,
                            CachingAllocator::PoolId pool) override {
    // Released in stream order: the allocator hands a block out again only behind the work
    // already queued on the stream it served, the last replay included.
    CachingAllocator& allocator = device_allocator(device);
    for (void* block : scratch_blocks) allocator.release(block);
    // What the capture allocated, and what was freed while it ran, was held for the replays.
    allocator.release_pool(pool);
  }
};

CudaRuntime& runtime() {
  static auto* instance = new CudaRuntime();  // never destroyed: deleters may run at exit
  return *instance;
}

const RegisterDeviceRuntime kRegister(Device::Kind::cuda, runtime());

}  // namespace

}  // namespace kiln::cuda
