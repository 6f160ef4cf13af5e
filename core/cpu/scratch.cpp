// The grow-only CPU buffer (core/cpu/scratch.h).
#include "kiln/core/cpu/scratch.h"

#include "kiln/core/memory.h"

namespace kiln::cpu {

Scratch::~Scratch() { release(); }

void Scratch::release() {
  if (data_ != nullptr) release_bytes(data_, bytes_, Device::cpu());
  data_ = nullptr;
  bytes_ = 0;
}

void* Scratch::get(std::size_t bytes) {
  if (bytes > bytes_) {
    release();
    data_ = allocate_bytes(bytes, Device::cpu());
    bytes_ = bytes;
  }
  return data_;
}

}  // namespace kiln::cpu
