// Storage allocation and release.
#include "kiln/core/storage.h"

#include "kiln/core/log.h"

namespace kiln {

std::shared_ptr<Storage> Storage::allocate(std::size_t bytes, Device device, HostMemory host) {
  KILN_CHECK(host == HostMemory::pageable || device.is_cpu(),
             "pinned memory is host memory; asked for it on {}", device.str());
  void* ptr = allocate_bytes(bytes, device, host);
  return std::shared_ptr<Storage>(new Storage(ptr, bytes, device, host));
}

Storage::~Storage() {
  try {
    release_bytes(ptr_, bytes_, device_, host_);
  } catch (const std::exception& e) {
    log::error("releasing {} bytes on {} failed: {}", bytes_, device_.str(), e.what());
  }
}

}  // namespace kiln
