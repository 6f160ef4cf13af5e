// gemm and matmul (checks in core/ops/gemm.cpp; kernels in core/cpu/gemm.cpp, the oneDNN folder
// and core/cuda/gemm.cpp).
#pragma once

#include "kiln/core/ops/gemm_record.h"
#include "kiln/core/tensor.h"

namespace kiln {

// out = alpha * op(a) @ op(b) + beta * out, op(t) = t or tᵀ.
// a: (M, K) or (K, M) if trans_a; b: (K, N) or (N, K) if trans_b; out: (M, N).
void gemm(const Tensor& a, bool trans_a, const Tensor& b, bool trans_b, Tensor& out,
          float alpha = 1.0f, float beta = 0.0f);
// Allocating convenience: returns op(a) @ op(b).
Tensor matmul(const Tensor& a, const Tensor& b, bool trans_a = false, bool trans_b = false);

namespace op {

// check() fills the record: op(a) is (m, k), op(b) (k, n).
struct Gemm {
  static constexpr const char* kName = "gemm";
  const Tensor& a;
  bool trans_a;
  const Tensor& b;
  bool trans_b;
  Tensor& out;
  float alpha, beta;
  rec::Gemm record{};
  void check();
  Device device() const { return a.device(); }
};

}  // namespace op
}  // namespace kiln
