// Storage: one reference-counted allocation that tensors (and their views) share. It returns
// its memory to the allocator it came from when the last tensor lets go.
#pragma once

#include <cstddef>
#include <memory>

#include "kiln/core/device.h"
#include "kiln/core/memory.h"

namespace kiln {

class Storage {
 public:
  static std::shared_ptr<Storage> allocate(std::size_t bytes, Device device,
                                           HostMemory host = HostMemory::pageable);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }
  Device device() const { return device_; }
  bool pinned() const { return host_ == HostMemory::pinned; }

 private:
  Storage(void* ptr, std::size_t bytes, Device device, HostMemory host)
      : ptr_(ptr), bytes_(bytes), device_(device), host_(host) {}
  void* ptr_;
  std::size_t bytes_;
  Device device_;
  HostMemory host_;
};

}  // namespace kiln
