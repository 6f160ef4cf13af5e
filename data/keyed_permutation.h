// KeyedPermutation: a permutation of [0, n) under (seed, epoch) that is computed per position and
// holds no table, for epochs too large to shuffle in memory (data/sampler.h).
#pragma once

#include <cstdint>

namespace kiln {

// A balanced Feistel network over the smallest even number of bits that covers n, its round
// function a Philox draw, made a bijection of [0, n) by cycle walking: the value is permuted again
// until it falls below n (fewer than four times on average, as the network's domain is under 4n).
// Over a tiny domain a Feistel network makes only even permutations; the sampler uses it past 2^20
// values, where the domain has 20 bits or more.
class KeyedPermutation {
 public:
  KeyedPermutation(std::int64_t n, std::uint64_t seed, std::int64_t epoch);

  std::int64_t size() const { return n_; }
  // The value at `position` in [0, n): every value once over all positions.
  std::int64_t operator[](std::int64_t position) const;

 private:
  std::uint64_t feistel(std::uint64_t x) const;

  std::int64_t n_;
  int half_bits_ = 1;
  std::uint64_t half_mask_ = 1;
  std::uint32_t k0_ = 0, k1_ = 0;
};

}  // namespace kiln
