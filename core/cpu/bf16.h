// bfloat16 rounding for the CPU's MatmulPrecision::bf16 products: the upper 16 bits of a float32
// rounded to nearest even, NaN kept NaN. Both CPU paths round with it, so they see the same inputs.
#pragma once

#include <cstdint>
#include <cstring>

namespace kiln::cpu {

inline std::uint16_t bf16_bits(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x40u);
  return static_cast<std::uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

// The float32 a bfloat16 holds (exact: its 16 bits are the float's upper half).
inline float bf16_to_float(std::uint16_t b) {
  const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
  float out;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

// x rounded to the nearest bfloat16, as a float32.
inline float round_to_bf16(float x) { return bf16_to_float(bf16_bits(x)); }

// out[i] = bf16_bits(x[i]) for i in [0, n).
void write_bf16_bits(std::int64_t n, const float* x, std::uint16_t* out);

// `count` floats rounded to bf16 (as float32) into the calling thread's staging buffer `slot`
// (0..3), for bf16 products on fp32 kernels.
const float* rounded_to_bf16(const float* src, std::int64_t count, int slot);
// Frees the calling thread's buffers of rounded_to_bf16.
void release_rounding_buffers();

}  // namespace kiln::cpu
