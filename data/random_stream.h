// RandomStream: the data pipeline's random numbers, drawn from Philox (core/philox.h) so that a
// value depends only on (seed, purpose, epoch, index) and on nothing else: not on the thread that
// asks, not on the order of requests, not on the standard library. The sampler's shuffle, the
// article set and the random transforms each draw from their own purpose.
#pragma once

#include <cmath>
#include <cstdint>

#include "kiln/core/philox.h"

namespace kiln {

// Keeps the draws of different parts of the pipeline apart under one seed.
enum class RandomPurpose : std::uint32_t {
  shuffle = 1,
  article_prototype = 2,
  article_sample = 3,
  token_window = 4,
  permutation = 5,  // the sampler's computed order of large epochs (data/keyed_permutation.h)
  transform = 16,   // + the transform's position in its pipeline
};

class RandomStream {
 public:
  RandomStream(std::uint64_t seed, RandomPurpose purpose, std::uint64_t epoch, std::uint64_t index,
               std::uint32_t sub_purpose = 0)
      : index_(index) {
    const philox::Uint4 key = stream_key(seed, purpose, epoch, sub_purpose);
    k0_ = key.x;
    k1_ = key.y;
  }

  // The key is itself a Philox draw of (purpose, epoch) under the seed: distinct purposes and
  // epochs give unrelated keys, where xor-ing them into the seed would let seeds collide. Its
  // first two words key the stream.
  static philox::Uint4 stream_key(std::uint64_t seed, RandomPurpose purpose, std::uint64_t epoch,
                                  std::uint32_t sub_purpose = 0) {
    return philox::philox4x32(
        {static_cast<std::uint32_t>(purpose) + sub_purpose, lo(epoch), hi(epoch), 0x6b696c6eu},
        lo(seed), hi(seed));
  }

  std::uint32_t next_u32() {
    if (position_ == 4) refill();
    return words_[position_++];
  }
  std::uint64_t next_u64() {
    const std::uint64_t high = next_u32();
    return (high << 32) | next_u32();
  }
  // Uniform in [0, 1), exact in float32.
  float next_unit() { return philox::to_unit(next_u32()); }
  // Uniform in [0, n) for n >= 1: the high 64 bits of a 64x64-bit product (Lemire), whose bias
  // (below n / 2^64) is far under anything a shuffle of a data set could show.
  std::uint64_t next_below(std::uint64_t n) { return mul_high(next_u64(), n); }
  // Standard normal by Box-Muller; the second value of each pair is kept for the next call.
  float next_normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const float u1 = (static_cast<float>(next_u32() >> 8) + 1.0f) * (1.0f / 16777216.0f);  // (0, 1]
    const float u2 = next_unit();
    const float radius = std::sqrt(-2.0f * std::log(u1));
    const float angle = 6.28318530717958647692f * u2;
    spare_ = radius * std::sin(angle);
    has_spare_ = true;
    return radius * std::cos(angle);
  }

 private:
  static std::uint32_t lo(std::uint64_t v) { return static_cast<std::uint32_t>(v); }
  static std::uint32_t hi(std::uint64_t v) { return static_cast<std::uint32_t>(v >> 32); }
  static std::uint64_t mul_high(std::uint64_t a, std::uint64_t b) {
    const std::uint64_t a_lo = lo(a), a_hi = hi(a), b_lo = lo(b), b_hi = hi(b);
    const std::uint64_t lo_lo = a_lo * b_lo, hi_lo = a_hi * b_lo, lo_hi = a_lo * b_hi;
    const std::uint64_t cross = (lo_lo >> 32) + lo(hi_lo) + lo_hi;
    return a_hi * b_hi + (hi_lo >> 32) + (cross >> 32);
  }
  void refill() {
    const philox::Uint4 r =
        philox::philox4x32({lo(index_), hi(index_), lo(block_), hi(block_)}, k0_, k1_);
    ++block_;
    words_[0] = r.x;
    words_[1] = r.y;
    words_[2] = r.z;
    words_[3] = r.w;
    position_ = 0;
  }

  std::uint32_t k0_ = 0, k1_ = 0;
  std::uint64_t index_ = 0;
  std::uint64_t block_ = 0;
  std::uint32_t words_[4] = {};
  int position_ = 4;
  bool has_spare_ = false;
  float spare_ = 0.0f;
};

}  // namespace kiln
