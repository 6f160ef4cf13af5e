#include "kiln/core/cpu/bf16.h"

#include <vector>

#include "kiln/core/cpu/parallel_loop.h"

namespace kiln::cpu {

void write_bf16_bits(std::int64_t n, const float* x, std::uint16_t* out) {
  for_each_index(n, [=](std::int64_t i) { out[i] = bf16_bits(x[i]); });
}

const float* rounded_to_bf16(const float* src, std::int64_t count, int slot) {
  thread_local std::vector<float> staging[4];
  std::vector<float>& out = staging[slot];
  if (static_cast<std::int64_t>(out.size()) < count) out.resize(static_cast<std::size_t>(count));
#pragma omp parallel for if (count > 65536) schedule(static)
  for (std::int64_t i = 0; i < count; ++i) out[i] = round_to_bf16(src[i]);
  return out.data();
}

}  // namespace kiln::cpu
