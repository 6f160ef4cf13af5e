// Allocation by device, through the device runtime (core/device_runtime.h): aligned pageable
// memory on the CPU (counted, for the "a training step allocates nothing" checks), pinned host
// memory and cached device memory from the CUDA runtime. Without a CUDA runtime (a CPU-only
// build) the last two throw.
#include "kiln/core/memory.h"

#include "kiln/core/device_runtime.h"

namespace kiln {

namespace {

std::string mib(std::size_t bytes) { return fmt::format("{:.1f} MiB", bytes / 1048576.0); }

bool is_pinned(Device device, HostMemory host) {
  return device.is_cpu() && host == HostMemory::pinned;
}

}  // namespace

void* allocate_bytes(std::size_t bytes, Device device, HostMemory host) {
  if (is_pinned(device, host))
    return device_runtime(Device::Kind::cuda, "pinned host memory").pinned_allocate(bytes);
  DeviceRuntime& runtime = device_runtime(device, "a CUDA tensor");
  void* ptr = runtime.allocate(device.index(), bytes);
  if (ptr == nullptr) {
    const MemoryStats s = runtime.memory_stats(device.index());
    const DeviceMemoryInfo info = runtime.memory_info(device.index());
    throw OutOfMemory(
        fmt::format("out of memory on {}: could not allocate {} ({} in use by kiln, {} free of {} "
                    "on the device); use a smaller batch size",
                    device.str(), mib(bytes), mib(s.in_use), mib(info.free), mib(info.total)),
        "memory.cpp");
  }
  return ptr;
}

void release_bytes(void* ptr, std::size_t bytes, Device device, HostMemory host) {
  if (ptr == nullptr) return;
  const bool pinned = is_pinned(device, host);
  DeviceRuntime* runtime = find_device_runtime(pinned ? Device::Kind::cuda : device.kind());
  if (runtime == nullptr) return;  // no runtime, so none of its memory exists
  if (pinned) return runtime->pinned_release(ptr);
  runtime->release(device.index(), ptr, bytes);
}

MemoryStats memory_stats(Device device) {
  DeviceRuntime& runtime = device_runtime(device, "memory_stats on a CUDA device");
  runtime.check_device(device.index());
  return runtime.memory_stats(device.index());
}

MemoryStats pinned_memory_stats() {
  DeviceRuntime* cuda = find_device_runtime(Device::Kind::cuda);
  return cuda != nullptr ? cuda->pinned_stats() : MemoryStats{};
}

void reset_peak_memory_stats(Device device) {
  device_runtime(device, "reset_peak_memory_stats on a CUDA device")
      .reset_peak_memory_stats(device.index());
}

void empty_cache(Device device) {
  device_runtime(device, "empty_cache on a CUDA device").empty_cache(device.index());
}

DeviceMemoryInfo device_memory_info(Device device) {
  KILN_CHECK(device.is_cuda(), "device_memory_info needs a CUDA device, found {}", device.str());
  DeviceRuntime& runtime = device_runtime(device, "device_memory_info");
  runtime.check_device(device.index());
  return runtime.memory_info(device.index());
}

}  // namespace kiln
