// The device-runtime interface: the device-specific work of core/'s runtime files (memory.cpp,
// stream.cpp, copy.cpp, cuda_graph.cpp, device.cpp) and the device queries the rest of kiln makes.
// One implementation per device kind: the CPU's (core/cpu/device_runtime.cpp), always present,
// and CUDA's (core/cuda/device_runtime.cpp), which registers itself in a CUDA build only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kiln/core/caching_allocator.h"
#include "kiln/core/device.h"

namespace kiln {

struct DeviceMemoryInfo;  // core/memory.h

// A CPU-only build has no CUDA runtime: asking for one throws "<what> needs CUDA, but this kiln
// was built without CUDA". Devices are the kind's indices; handles are opaque (cudaStream_t,
// cudaEvent_t, cudaGraphExec_t on CUDA). Operations a kind has no use for (pinned memory and
// graphs on the CPU) throw a kiln::Error saying so.
class DeviceRuntime {
 public:
  using StreamHandle = void*;  // nullptr on the CPU, which has no queue
  using EventHandle = void*;
  using GraphHandle = void*;

  virtual ~DeviceRuntime() = default;

  // ---- Devices
  virtual int device_count() = 0;                        // 0 when no device or driver answers
  virtual std::string unavailable_reason() = 0;          // in words, when device_count() is 0
  virtual void check_device(int device) = 0;             // throws unless the device is usable
  virtual void set_device(int device) = 0;               // for this thread; cheap when current
  virtual std::string device_name(int device) = 0;       // "NVIDIA H200", "CPU"
  virtual std::string pci_bus_id(int device) = 0;        // "0000:3b:00.0", as NVML names devices
  virtual DeviceMemoryInfo memory_info(int device) = 0;  // free and total, as the driver sees it

  // ---- Memory. allocate returns nullptr when the device is out of memory (the caller says so,
  // with the figures); stream-ordered where the device has streams (this thread's current one).
  virtual void* allocate(int device, std::size_t bytes) = 0;
  virtual void release(int device, void* ptr, std::size_t bytes) = 0;  // never throws
  virtual MemoryStats memory_stats(int device) = 0;
  virtual void reset_peak_memory_stats(int device) = 0;
  virtual void empty_cache(int device) = 0;  // cached, unused memory back to the driver
  // Page-locked host memory for fast asynchronous copies (a facility of the GPU's runtime).
  virtual void* pinned_allocate(std::size_t bytes) = 0;
  virtual void pinned_release(void* ptr) = 0;  // never throws
  virtual MemoryStats pinned_stats() = 0;

  // ---- Streams. The current stream is per thread and device.
  virtual StreamHandle current_stream(int device) = 0;
  virtual void set_current_stream(int device, StreamHandle stream) = 0;
  virtual StreamHandle create_stream(int device) = 0;
  virtual void destroy_stream(StreamHandle stream) noexcept = 0;
  virtual void synchronize_stream(StreamHandle stream) = 0;
  virtual void stream_wait_event(StreamHandle stream, EventHandle event) = 0;
  // Work queued on `stream` after the call waits for the work queued so far on this thread's
  // current stream of `device` (a copy from another GPU after the kernels producing its source).
  virtual void wait_for_device(StreamHandle stream, int device) = 0;
  // The work just queued on `stream` (of `device`) uses the memory at `ptr`, maybe allocated on
  // another stream: freed, it is not handed out again before `stream` has passed this point.
  virtual void record_stream(int device, const void* ptr, StreamHandle stream) = 0;
  // The same for a use queued on `stream` of another device, `stream_device`.
  virtual void record_use_from_device(int device, const void* ptr, StreamHandle stream,
                                      int stream_device) = 0;

  // ---- Events (with timing)
  virtual EventHandle create_event(int device) = 0;
  virtual void destroy_event(EventHandle event) noexcept = 0;
  virtual void record_event(EventHandle event, StreamHandle stream) = 0;
  virtual void synchronize_event(int device, EventHandle event) = 0;
  // True once the work before the record has completed; not while recorded into a capture.
  virtual bool query_event(EventHandle event) = 0;
  // Milliseconds between two recorded events (waits for `end`).
  virtual double event_elapsed_ms(EventHandle start, EventHandle end) = 0;

  // ---- Copies between any two of host and this kind's memory, queued on `stream`.
  virtual void copy_bytes_async(void* dst, const void* src, std::size_t bytes,
                                StreamHandle stream) = 0;

  // ---- Graph capture (CudaGraph, core/cuda_graph.h). begin_capture returns the private pool of
  // `device`'s allocator that this thread's allocations go to until end_capture; while capturing,
  // scratch blocks go to `scratch_sink`. end_capture with `failed` drops the capture, nullptr.
  virtual CachingAllocator::PoolId begin_capture(StreamHandle stream,
                                                 std::vector<void*>* scratch_sink, int device) = 0;
  virtual GraphHandle end_capture(StreamHandle stream, bool failed) = 0;
  virtual void launch_graph(GraphHandle graph, StreamHandle stream) = 0;
  virtual void destroy_graph(GraphHandle graph) noexcept = 0;
  // Gives back what a graph held for its replays: its scratch blocks and its private pool.
  virtual void release_graph_memory(int device, const std::vector<void*>& scratch_blocks,
                                    CachingAllocator::PoolId pool) = 0;
};

// The runtime of `kind`, or nullptr where this build registered none (CUDA in a CPU-only build).
DeviceRuntime* find_device_runtime(Device::Kind kind) noexcept;
// The runtime of `device`'s kind; where none is registered, throws "<what> needs CUDA, but this
// kiln was built without CUDA; ...".
DeviceRuntime& device_runtime(Device::Kind kind, const char* what);
inline DeviceRuntime& device_runtime(Device device, const char* what) {
  return device_runtime(device.kind(), what);
}

// A static object of this type in a backend's file registers its runtime at load time (the CUDA
// backend's, core/cuda/device_runtime.cpp; the CPU's is built in).
struct RegisterDeviceRuntime {
  RegisterDeviceRuntime(Device::Kind kind, DeviceRuntime& runtime);
};

namespace detail {
DeviceRuntime& cpu_runtime();  // core/cpu/device_runtime.cpp
}  // namespace detail

}  // namespace kiln
