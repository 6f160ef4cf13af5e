// The CPU's device runtime: 64-byte aligned pageable memory, counted for the "a training step
// allocates nothing" checks; work is synchronous, so a stream is nullptr and waiting is a no-op;
// an event is the host's steady clock at its last record. Pinned memory and graph capture are
// the GPU runtime's and throw here.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "kiln/core/device_runtime.h"
#include "kiln/core/error.h"
#include "kiln/core/memory.h"

namespace kiln {

namespace {

double steady_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

std::size_t aligned_size(std::size_t bytes) {
  return (std::max<std::size_t>(bytes, 1) + kCpuAlignment - 1) / kCpuAlignment * kCpuAlignment;
}

std::string mib(std::size_t bytes) { return fmt::format("{:.1f} MiB", bytes / 1048576.0); }

[[noreturn]] void throw_not_on_cpu(const char* what) {
  KILN_THROW("{} is a GPU facility: the CPU has none; use a CUDA device", what);
}

class CpuRuntime final : public DeviceRuntime {
 public:
  int device_count() override { return 1; }
  std::string unavailable_reason() override { return {}; }
  void check_device(int) override {}
  void set_device(int) override {}
  std::string device_name(int) override { return "CPU"; }
  std::string pci_bus_id(int) override { throw_not_on_cpu("a PCI bus id"); }
  DeviceMemoryInfo memory_info(int) override { throw_not_on_cpu("device_memory_info"); }

  void* allocate(int, std::size_t bytes) override {
    const std::size_t size = aligned_size(bytes);
    void* ptr = std::aligned_alloc(kCpuAlignment, size);
    if (ptr == nullptr)
      throw OutOfMemory(fmt::format("out of host memory: could not allocate {}", mib(size)),
                        "device_runtime.cpp");
    std::lock_guard lock(mutex_);
    ++stats_.raw_allocations;
    stats_.in_use += size;
    stats_.reserved = stats_.in_use;
    stats_.peak_in_use = std::max(stats_.peak_in_use, stats_.in_use);
    stats_.peak_reserved = stats_.peak_in_use;
    return ptr;
  }
  void release(int, void* ptr, std::size_t bytes) override {
    std::free(ptr);
    std::lock_guard lock(mutex_);
    ++stats_.raw_frees;
    stats_.in_use -= aligned_size(bytes);
    stats_.reserved = stats_.in_use;
  }
  MemoryStats memory_stats(int) override {
    std::lock_guard lock(mutex_);
    return stats_;
  }
  void reset_peak_memory_stats(int) override {
    std::lock_guard lock(mutex_);
    stats_.peak_in_use = stats_.peak_reserved = stats_.in_use;
  }
  void empty_cache(int) override {}
  void* pinned_allocate(std::size_t) override { throw_not_on_cpu("pinned host memory"); }
  void pinned_release(void*) override {}
  MemoryStats pinned_stats() override { return {}; }

  StreamHandle current_stream(int) override { return nullptr; }
  void set_current_stream(int, StreamHandle) override {}
  StreamHandle create_stream(int) override { return nullptr; }
  void destroy_stream(StreamHandle) noexcept override {}
  void synchronize_stream(StreamHandle) override {}
  void stream_wait_event(StreamHandle, EventHandle) override {}
  void wait_for_device(StreamHandle, int) override {}
  void record_stream(int, const void*, StreamHandle) override {}
  void record_use_from_device(int, const void*, StreamHandle, int) override {}

  // An event is the steady-clock time of its last record, in milliseconds.
  EventHandle create_event(int) override { return new double(0.0); }
  void destroy_event(EventHandle event) noexcept override { delete static_cast<double*>(event); }
  void record_event(EventHandle event, StreamHandle) override {
    KILN_CHECK(event != nullptr, "Event::record: the event was moved from");
    *static_cast<double*>(event) = steady_ms();
  }
  void synchronize_event(int, EventHandle) override {}
  bool query_event(EventHandle) override { return true; }
  double event_elapsed_ms(EventHandle start, EventHandle end) override {
    KILN_CHECK(start != nullptr && end != nullptr, "Event::elapsed_ms: an event was moved from");
    return *static_cast<const double*>(end) - *static_cast<const double*>(start);
  }

  void copy_bytes_async(void* dst, const void* src, std::size_t bytes, StreamHandle) override {
    std::memmove(dst, src, bytes);
  }

  CachingAllocator::PoolId begin_capture(StreamHandle, std::vector<void*>*, int) override {
    throw_not_on_cpu("graph capture");
  }
  GraphHandle end_capture(StreamHandle, bool) override { throw_not_on_cpu("graph capture"); }
  void launch_graph(GraphHandle, StreamHandle) override { throw_not_on_cpu("a graph launch"); }
  void destroy_graph(GraphHandle) noexcept override {}
  void release_graph_memory(int, const std::vector<void*>&, CachingAllocator::PoolId) override {}

 private:
  // The mutex only guards peak updates and reads of the whole set.
  std::mutex mutex_;
  MemoryStats stats_;
};

}  // namespace

DeviceRuntime& detail::cpu_runtime() {
  static CpuRuntime runtime;
  return runtime;
}

}  // namespace kiln
