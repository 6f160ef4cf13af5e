// A grow-only buffer from kiln's CPU allocator, for the kernels' per-thread working memory
// (oneDNN's scratchpads, bf16 copies of operands): allocated once at the largest size asked, so
// a steady step allocates nothing, and counted in memory_stats like every tensor.
#pragma once

#include <cstddef>

namespace kiln::cpu {

class Scratch {
 public:
  Scratch() = default;
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch();
  // At least `bytes`; the contents are not kept when it grows.
  void* get(std::size_t bytes);
  void release();

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace kiln::cpu
