// The memory the CPU's kernels take beside the tensors, for the memory estimate: oneDNN's
// scratchpad (blocked copies of the operands, which grow with K, N and the thread count on the
// AVX-512 kernels) and the bf16 copies of a bf16 run's operands. Each thread keeps one grow-only
// buffer of each kind, so a step needs the largest of each, not their sum.
#pragma once

#include <cstdint>

namespace kiln {

// c (m, n) = op(a) @ op(b) over `batch` matrices (+ a bias row; accumulate: c += ...).
struct MatmulShape {
  std::int64_t batch = 1, m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false, bias = false, accumulate = false;
};

// The buffers the products of a step need, at the current cpu_compute(), matmul_precision(),
// thread count and CPU description (core/cpu_description.h).
class CpuWorkspace {
 public:
  void add(const MatmulShape& product);
  // `layers` Linears of (rows, in) -> (rows, out): the forward and the backward's two products,
  // and, in a bf16 run on a bf16 CPU, each weight's bf16 copy (layers/bf16_shadow.h) unless
  // the layer keeps none (a head tied to an embedding).
  void add_linear(std::int64_t rows, std::int64_t in, std::int64_t out, bool bias,
                  std::int64_t layers = 1, bool weight_copy = true);
  std::int64_t bytes() const;

 private:
  std::int64_t scratchpad_ = 0;           // the largest product's
  std::int64_t a_copy_ = 0, b_copy_ = 0;  // bf16 runs: the largest operands' copies
  std::int64_t gradient_copy_ = 0;        // bf16 runs: a Linear's gradient as the products take it
  std::int64_t weight_copies_ = 0;        // bf16 runs: every Linear's bf16 weight, in bytes
};

// Frees the calling thread's CPU kernel buffers; the next product allocates them again.
void release_cpu_workspace();

}  // namespace kiln
