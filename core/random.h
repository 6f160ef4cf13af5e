// Random initialisation from a counter-based generator: element i of a draw depends only on
// (seed, offset + i), so one seed gives the same numbers on the CPU and on a GPU (uniform draws
// bit for bit, normal draws within a few ulps of the devices' log/cos). A Generator hands out
// disjoint ranges of counters, like PyTorch's Philox offset.
#pragma once

#include <cstdint>

#include "kiln/core/tensor.h"

namespace kiln {

class Generator {
 public:
  explicit Generator(std::uint64_t seed = 0) : seed_(seed) {}
  std::uint64_t seed() const { return seed_; }
  std::uint64_t offset() const { return offset_; }
  void set_state(std::uint64_t seed, std::uint64_t offset) {
    seed_ = seed;
    offset_ = offset;
  }
  // Reserves `count` counters and returns the first.
  std::uint64_t advance(std::uint64_t count) {
    const std::uint64_t first = offset_;
    offset_ += count;
    return first;
  }

 private:
  std::uint64_t seed_;
  std::uint64_t offset_ = 0;
};

// x: float32 tensor on any device, overwritten.
void uniform_(Tensor& x, float low, float high, Generator& gen);
void normal_(Tensor& x, float mean, float stddev, Generator& gen);

// Fans as PyTorch computes them: weight (out, in, k...) has fan_in = in * k..., fan_out = out *
// k...
struct Fans {
  std::int64_t in = 0;
  std::int64_t out = 0;
};
Fans compute_fans(const Shape& weight_shape);

enum class FanMode : unsigned char { fan_in, fan_out };
// Kaiming/He for (leaky) ReLU with negative slope `a`: gain sqrt(2 / (1 + a^2)).
void kaiming_uniform_(Tensor& w, Generator& gen, float a = 0.0f, FanMode mode = FanMode::fan_in);
void kaiming_normal_(Tensor& w, Generator& gen, float a = 0.0f, FanMode mode = FanMode::fan_in);
// Xavier/Glorot: uniform bound gain * sqrt(6 / (fan_in + fan_out)), normal std gain * sqrt(2 /
// ...).
void xavier_uniform_(Tensor& w, Generator& gen, float gain = 1.0f);
void xavier_normal_(Tensor& w, Generator& gen, float gain = 1.0f);

}  // namespace kiln
