// What CpuWorkspace counts, from the kernels' own rules (core/cpu/onednn/runtime.h): oneDNN is
// asked for each product's scratchpad; a bf16 operand is a 2-byte copy where the kernels take
// bf16, else a 4-byte rounded float.
#include "kiln/core/cpu_workspace.h"

#include <algorithm>

#include "kiln/core/checked_math.h"
#include "kiln/core/cpu/bf16.h"
#include "kiln/core/cpu/onednn/onednn.h"
#include "kiln/core/cpu_compute.h"
#include "kiln/core/memory_budget.h"
#include "kiln/core/precision.h"

namespace kiln {

namespace {

std::int64_t elements(std::int64_t a, std::int64_t b, std::int64_t c = 1) {
  return checked_mul(checked_mul(a, b).value_or(INT64_MAX), c).value_or(INT64_MAX);
}

// Bytes per element of a bf16 operand's copy.
std::int64_t copy_bytes() {
  return cpu_compute() == CpuCompute::onednn && cpu_has_bf16_instructions() &&
                 cpu::onednn::machine_has_bf16_kernels()
             ? 2
             : 4;
}

}  // namespace

void CpuWorkspace::add(const MatmulShape& p) {
  // A product whose operands pass int64 elements cannot be described to oneDNN (nor allocated):
  // its workspace saturates, and the estimate refuses it by its figures.
  if (elements(p.batch, p.m, p.k) == INT64_MAX || elements(p.batch, p.k, p.n) == INT64_MAX ||
      elements(p.batch, p.m, p.n) == INT64_MAX) {
    scratchpad_ = INT64_MAX;
    return;
  }
  if (cpu_compute() == CpuCompute::onednn) {
    const bool bf16 = bf16_products();
    const std::size_t bytes =
        p.batch == 1
            ? cpu::onednn::matmul_scratchpad_bytes(p.trans_a, p.trans_b, p.m, p.n, p.k, 1.0f,
                                                   p.bias, p.accumulate ? 1.0f : 0.0f, bf16)
            : cpu::onednn::batched_matmul_scratchpad_bytes(p.trans_a, p.trans_b, p.batch, p.m, p.n,
                                                           p.k, bf16);
    scratchpad_ = std::max(scratchpad_, static_cast<std::int64_t>(bytes));
  }
  if (bf16_products()) {
    a_copy_ = std::max(a_copy_, elements(p.batch, p.m, p.k));
    b_copy_ = std::max(b_copy_, elements(p.batch, p.k, p.n));
  }
}

void CpuWorkspace::add_linear(std::int64_t rows, std::int64_t in, std::int64_t out, bool bias,
                              std::int64_t layers, bool weight_copy) {
  add({.m = rows, .n = out, .k = in, .trans_b = true, .bias = bias});        // y = x Wᵀ + b
  add({.m = out, .n = in, .k = rows, .trans_a = true, .accumulate = true});  // dW += dyᵀ x
  add({.m = rows, .n = in, .k = out});                                       // dx = dy W
  if (bf16_products()) gradient_copy_ = std::max(gradient_copy_, elements(rows, out));
  if (bf16_products() && weight_copy && cpu_has_bf16_instructions() &&
      cpu_compute() == CpuCompute::onednn)
    weight_copies_ = saturating_add(weight_copies_, elements(layers, in, out * 2));
}

std::int64_t CpuWorkspace::bytes() const {
  const std::int64_t copies = saturating_add(saturating_add(a_copy_, b_copy_), gradient_copy_);
  return saturating_add(saturating_add(scratchpad_, elements(copies, copy_bytes())),
                        weight_copies_);
}

void release_cpu_workspace() {
  cpu::onednn::release_workspace();
  cpu::release_rounding_buffers();
}

}  // namespace kiln
