// Where tensor memory comes from and how much is used. CPU memory is 64-byte aligned; pinned
// host memory (page-locked, for fast asynchronous copies) comes from cudaHostAlloc; CUDA device
// memory comes from one caching allocator per device.
#pragma once

#include <cstddef>

#include "kiln/core/caching_allocator.h"
#include "kiln/core/device.h"
#include "kiln/core/error.h"

namespace kiln {

constexpr std::size_t kCpuAlignment = 64;

enum class HostMemory : unsigned char { pageable, pinned };

// Raw allocation for a Storage; throws OutOfMemory (a kiln::Error) on failure.
void* allocate_bytes(std::size_t bytes, Device device, HostMemory host = HostMemory::pageable);
void release_bytes(void* ptr, std::size_t bytes, Device device,
                   HostMemory host = HostMemory::pageable);

// Statistics of the CPU allocator (pageable), of pinned host memory, or of a device's cache.
MemoryStats memory_stats(Device device);
MemoryStats pinned_memory_stats();
void reset_peak_memory_stats(Device device);
// Returns cached, unused device memory to the driver (no-op on the CPU).
void empty_cache(Device device);

struct DeviceMemoryInfo {
  std::size_t free = 0;
  std::size_t total = 0;
};
// Free and total memory of a CUDA device as the driver sees it.
DeviceMemoryInfo device_memory_info(Device device);

// Thrown when a device allocation fails even after the cache was emptied; a batch-size search
// catches it to step back.
class OutOfMemory : public Error {
 public:
  using Error::Error;
};

}  // namespace kiln
