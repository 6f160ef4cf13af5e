// Allocation by device: aligned pageable memory on the CPU (counted, for the "a training step
// allocates nothing" checks), pinned host memory and cached device memory through the CUDA
// runtime. This file is one of the CUDA seams: without CUDA the last two throw.
#include "kiln/core/memory.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>

#if KILN_CUDA
#include "kiln/core/cuda/runtime.h"
#endif

namespace kiln {

namespace {

// Counters of the CPU allocator. The mutex only guards peak updates and reads of the whole set.
struct CpuCounters {
  std::mutex mutex;
  MemoryStats stats;
};
CpuCounters& cpu_counters() {
  static CpuCounters counters;
  return counters;
}

std::size_t aligned_size(std::size_t bytes) {
  return (std::max<std::size_t>(bytes, 1) + kCpuAlignment - 1) / kCpuAlignment * kCpuAlignment;
}

std::string mib(std::size_t bytes) { return fmt::format("{:.1f} MiB", bytes / 1048576.0); }

}  // namespace

void* allocate_bytes(std::size_t bytes, Device device, HostMemory host) {
  if (device.is_cpu() && host == HostMemory::pageable) {
    const std::size_t size = aligned_size(bytes);
    void* ptr = std::aligned_alloc(kCpuAlignment, size);
    if (ptr == nullptr)
      throw OutOfMemory(fmt::format("out of host memory: could not allocate {}", mib(size)),
                        "memory.cpp");
    auto& c = cpu_counters();
    std::lock_guard lock(c.mutex);
    ++c.stats.raw_allocations;
    c.stats.in_use += size;
    c.stats.reserved = c.stats.in_use;
    c.stats.peak_in_use = std::max(c.stats.peak_in_use, c.stats.in_use);
    c.stats.peak_reserved = c.stats.peak_in_use;
    return ptr;
  }
#if KILN_CUDA
  if (device.is_cpu()) return cuda::pinned_allocate(bytes);
  cuda::check_device(device.index());
  cuda::set_device(device.index());
  void* ptr = cuda::device_allocator(device.index())
                  .allocate(bytes, cuda::current_stream(device.index()));
  if (ptr == nullptr) {
    const MemoryStats s = cuda::device_allocator(device.index()).stats();
    const DeviceMemoryInfo info = cuda::memory_info(device.index());
    throw OutOfMemory(
        fmt::format("out of memory on {}: could not allocate {} ({} in use by kiln, {} free of {} "
                    "on the device); use a smaller batch size",
                    device.str(), mib(bytes), mib(s.in_use), mib(info.free), mib(info.total)),
        "memory.cpp");
  }
  return ptr;
#else
  detail::throw_built_without_cuda(device.is_cpu() ? "pinned host memory" : "a CUDA tensor");
#endif
}

void release_bytes(void* ptr, std::size_t bytes, Device device, HostMemory host) {
  if (ptr == nullptr) return;
  if (device.is_cpu() && host == HostMemory::pageable) {
    std::free(ptr);
    auto& c = cpu_counters();
    std::lock_guard lock(c.mutex);
    ++c.stats.raw_frees;
    c.stats.in_use -= aligned_size(bytes);
    c.stats.reserved = c.stats.in_use;
    return;
  }
#if KILN_CUDA
  if (device.is_cpu()) return cuda::pinned_release(ptr);
  cuda::device_allocator(device.index()).release(ptr);
#endif
}

MemoryStats memory_stats(Device device) {
  if (device.is_cpu()) {
    auto& c = cpu_counters();
    std::lock_guard lock(c.mutex);
    return c.stats;
  }
#if KILN_CUDA
  cuda::check_device(device.index());
  return cuda::device_allocator(device.index()).stats();
#else
  detail::throw_built_without_cuda("memory_stats on a CUDA device");
#endif
}

MemoryStats pinned_memory_stats() {
#if KILN_CUDA
  return cuda::pinned_stats();
#else
  return {};
#endif
}

void reset_peak_memory_stats(Device device) {
  if (device.is_cpu()) {
    auto& c = cpu_counters();
    std::lock_guard lock(c.mutex);
    c.stats.peak_in_use = c.stats.peak_reserved = c.stats.in_use;
    return;
  }
#if KILN_CUDA
  cuda::device_allocator(device.index()).reset_peak();
#else
  detail::throw_built_without_cuda("reset_peak_memory_stats on a CUDA device");
#endif
}

void empty_cache(Device device) {
  if (device.is_cpu()) return;
#if KILN_CUDA
  cuda::device_allocator(device.index()).empty_cache();
#else
  detail::throw_built_without_cuda("empty_cache on a CUDA device");
#endif
}

DeviceMemoryInfo device_memory_info(Device device) {
  KILN_CHECK(device.is_cuda(), "device_memory_info needs a CUDA device, found {}", device.str());
#if KILN_CUDA
  cuda::check_device(device.index());
  return cuda::memory_info(device.index());
#else
  detail::throw_built_without_cuda("device_memory_info");
#endif
}

}  // namespace kiln
