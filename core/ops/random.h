// The random fills behind uniform_ and normal_ (core/random.h, the public functions; checks in
// core/ops/random.cpp; kernels in core/cpu/random.cpp and core/cuda/random.cpp).
#pragma once

#include <cstdint>

#include "kiln/core/ops/random_record.h"
#include "kiln/core/random.h"

namespace kiln::op {

// check() validates, then reserves x.numel() counters of gen: element i draws at offset + i.
struct Uniform {
  static constexpr const char* kName = "uniform_";
  Tensor& x;
  float low, high;
  Generator& gen;
  std::uint64_t offset = 0;
  rec::Uniform record{};  // filled by check()
  void check();
  Device device() const { return x.device(); }
};

struct Normal {
  static constexpr const char* kName = "normal_";
  Tensor& x;
  float mean, stddev;
  Generator& gen;
  std::uint64_t offset = 0;
  rec::Normal record{};  // filled by check()
  void check();
  Device device() const { return x.device(); }
};

}  // namespace kiln::op
