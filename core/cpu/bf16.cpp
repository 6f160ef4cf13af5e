// CPU bf16 rounding (round to nearest even, NaN kept) and the write_bf16_copy kernel.
#include "kiln/core/cpu/bf16.h"

#include <array>

#include "kiln/core/cpu/parallel_loop.h"
#include "kiln/core/cpu/scratch.h"
#include "kiln/core/op_table.h"
#include "kiln/core/ops/bf16_copy.h"

namespace kiln::cpu {

void write_bf16_bits(std::int64_t n, const float* x, std::uint16_t* out) {
  for_each_index(n, [=](std::int64_t i) { out[i] = bf16_bits(x[i]); });
}

namespace {

std::array<Scratch, 4>& rounding_buffers() {
  thread_local std::array<Scratch, 4> buffers;
  return buffers;
}

}  // namespace

const float* rounded_to_bf16(const float* src, std::int64_t count, int slot) {
  auto* out = static_cast<float*>(rounding_buffers()
                                      .at(static_cast<std::size_t>(slot))
                                      .get(static_cast<std::size_t>(count) * sizeof(float)));
#pragma omp parallel for if (count > 65536) schedule(static)
  for (std::int64_t i = 0; i < count; ++i) out[i] = round_to_bf16(src[i]);
  return out;
}

void release_rounding_buffers() {
  for (Scratch& s : rounding_buffers()) s.release();
}

namespace {

void copy(const rec::WriteBf16Copy& o) { write_bf16_bits(o.n, o.x, o.out); }

const RegisterKernel<op::WriteBf16Copy> kCopy(Backend::reference, on_record<copy>, "bf16", "kiln");

}  // namespace

}  // namespace kiln::cpu
