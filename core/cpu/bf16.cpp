// CPU bf16 rounding (round to nearest even, NaN kept) and the write_bf16_copy kernel.
#include "kiln/core/cpu/bf16.h"

#include <vector>

#include "kiln/core/cpu/parallel_loop.h"
#include "kiln/core/op_table.h"
#include "kiln/core/ops/bf16_copy.h"

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

namespace {

void copy_kernel(op::WriteBf16Copy& o) {
  write_bf16_bits(o.x.numel(), o.x.data<float>(), static_cast<std::uint16_t*>(o.out.raw_data()));
}

const RegisterKernel<op::WriteBf16Copy> kCopy(Backend::reference, copy_kernel, "bf16", "kiln");

}  // namespace

}  // namespace kiln::cpu
