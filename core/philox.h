// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11): a
// counter-based generator, so element i of a random tensor depends only on (seed, offset + i).
// The same header compiles for host and device, which is what makes one seed give the same
// numbers on the CPU and the GPU.
#pragma once

#include <cstdint>

#include "kiln/core/host_device.h"

namespace kiln::philox {

struct Uint4 {
  std::uint32_t x, y, z, w;
};

KILN_HOST_DEVICE std::uint32_t mulhilo(std::uint32_t a, std::uint32_t b, std::uint32_t* hi) {
  const std::uint64_t p = static_cast<std::uint64_t>(a) * b;
  *hi = static_cast<std::uint32_t>(p >> 32);
  return static_cast<std::uint32_t>(p);
}

// Ten rounds on a 128-bit counter under a 64-bit key.
KILN_HOST_DEVICE Uint4 philox4x32(Uint4 c, std::uint32_t k0, std::uint32_t k1) {
  constexpr std::uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
  constexpr std::uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    std::uint32_t hi0, hi1;
    const std::uint32_t lo0 = mulhilo(kM0, c.x, &hi0);
    const std::uint32_t lo1 = mulhilo(kM1, c.z, &hi1);
    c = Uint4{hi1 ^ c.y ^ k0, lo1, hi0 ^ c.w ^ k1, lo0};
    k0 += kW0;
    k1 += kW1;
  }
  return c;
}

// Four random words for element `index` of a draw keyed on `seed`.
KILN_HOST_DEVICE Uint4 draw(std::uint64_t seed, std::uint64_t index) {
  const Uint4 counter{static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(index >> 32),
                      0u, 0u};
  return philox4x32(counter, static_cast<std::uint32_t>(seed),
                    static_cast<std::uint32_t>(seed >> 32));
}

// A float in [0, 1) from the top 24 bits of a word: exact in float32 on every device.
KILN_HOST_DEVICE float to_unit(std::uint32_t word) {
  return static_cast<float>(word >> 8) * (1.0f / 16777216.0f);
}

}  // namespace kiln::philox
