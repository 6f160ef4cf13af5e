// The Feistel network of keyed_permutation.h: six rounds (four already make a Feistel network of
// random round functions indistinguishable from a random permutation, Luby-Rackoff), each
// L, R <- R, L ^ F(round, R) with F a Philox draw keyed by (seed, epoch).
#include "kiln/data/keyed_permutation.h"

#include <bit>

#include "kiln/core/error.h"
#include "kiln/data/random_stream.h"

namespace kiln {

namespace {
constexpr std::uint32_t kRounds = 6;
}

KeyedPermutation::KeyedPermutation(std::int64_t n, std::uint64_t seed, std::int64_t epoch) : n_(n) {
  KILN_CHECK(n >= 0 && epoch >= 0,
             "a keyed permutation needs n >= 0 and epoch >= 0, found {} and {}", n, epoch);
  const int bits = n > 1 ? std::bit_width(static_cast<std::uint64_t>(n - 1)) : 1;
  half_bits_ = (bits + 1) / 2;
  half_mask_ = (std::uint64_t{1} << half_bits_) - 1;
  const philox::Uint4 key =
      RandomStream::stream_key(seed, RandomPurpose::permutation, static_cast<std::uint64_t>(epoch));
  k0_ = key.x;
  k1_ = key.y;
}

std::uint64_t KeyedPermutation::feistel(std::uint64_t x) const {
  std::uint64_t left = x >> half_bits_, right = x & half_mask_;
  for (std::uint32_t round = 0; round < kRounds; ++round) {
    const philox::Uint4 r = philox::philox4x32(
        {static_cast<std::uint32_t>(right), static_cast<std::uint32_t>(right >> 32), round, 0}, k0_,
        k1_);
    const std::uint64_t f = (static_cast<std::uint64_t>(r.y) << 32) | r.x;
    const std::uint64_t next = left ^ (f & half_mask_);
    left = right;
    right = next;
  }
  return (left << half_bits_) | right;
}

std::int64_t KeyedPermutation::operator[](std::int64_t position) const {
  KILN_CHECK(position >= 0 && position < n_, "position {} is outside the permutation of [0, {})",
             position, n_);
  // Cycle walking: the network permutes [0, 2^(2 * half_bits)), so following it from a value
  // below n reaches the next value below n on that value's cycle, which makes a bijection of
  // [0, n).
  auto x = static_cast<std::uint64_t>(position);
  do {
    x = feistel(x);
  } while (x >= static_cast<std::uint64_t>(n_));
  return static_cast<std::int64_t>(x);
}

}  // namespace kiln
