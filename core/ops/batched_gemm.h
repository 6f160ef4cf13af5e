// batched_gemm: one GEMM per matrix of a batch of equal shapes, the products of attention
// (checks in core/ops/batched_gemm.cpp; kernels in core/cpu/batched_gemm.cpp, the oneDNN folder
// and core/cuda/batched_gemm.cpp).
#pragma once

#include "kiln/core/ops/batched_gemm_record.h"
#include "kiln/core/tensor.h"

namespace kiln {

// out[i] = alpha * op(a[i]) @ op(b[i]) + beta * out[i] for each i of the batch, op(t) = t or tᵀ.
// a: (batch, M, K) or (batch, K, M) if trans_a; b: (batch, K, N) or (batch, N, K) if trans_b;
// out: (batch, M, N). beta == 0 never reads out.
void batched_gemm(const Tensor& a, bool trans_a, const Tensor& b, bool trans_b, Tensor& out,
                  float alpha = 1.0f, float beta = 0.0f);

namespace op {

// check() fills the record: op(a[i]) is (m, k), op(b[i]) (k, n).
struct BatchedGemm {
  static constexpr const char* kName = "batched_gemm";
  const Tensor& a;
  bool trans_a;
  const Tensor& b;
  bool trans_b;
  Tensor& out;
  float alpha, beta;
  rec::BatchedGemm record{};
  void check();
  Device device() const { return a.device(); }
};

}  // namespace op
}  // namespace kiln
