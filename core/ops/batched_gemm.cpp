// The batched_gemm op's checks and public entry point.
#include "kiln/core/ops/batched_gemm.h"

#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln {

namespace op {

void BatchedGemm::check() {
  detail::check_operands(kName, {{"a", &a}, {"b", &b}, {"out", &out}}, DType::f32);
  detail::check_same_device(kName, {{"a", &a}, {"b", &b}, {"out", &out}});
  KILN_CHECK(a.rank() == 3 && b.rank() == 3 && out.rank() == 3,
             "{}: a, b and out must be batches of matrices (batch, rows, cols), found a {}, b {}, "
             "out {}",
             kName, a.shape().str(), b.shape().str(), out.shape().str());
  const std::int64_t batch = a.size(0);
  const std::int64_t m = trans_a ? a.size(2) : a.size(1);
  const std::int64_t k = trans_a ? a.size(1) : a.size(2);
  const std::int64_t kb = trans_b ? b.size(2) : b.size(1);
  const std::int64_t n = trans_b ? b.size(1) : b.size(2);
  KILN_CHECK(
      b.size(0) == batch && kb == k,
      "{}: op(a) is ({}, {}, {}) but op(b) is ({}, {}, {}); the batches and inner sizes must "
      "agree",
      kName, batch, m, k, b.size(0), kb, n);
  detail::check_shape(kName, {"out", &out}, Shape{batch, m, n});
  record = {
      {trans_a, trans_b, m, n, k, alpha, a.data<float>(), b.data<float>(), beta, out.data<float>()},
      batch};
}

}  // namespace op

void batched_gemm(const Tensor& a, bool trans_a, const Tensor& b, bool trans_b, Tensor& out,
                  float alpha, float beta) {
  run(op::BatchedGemm{a, trans_a, b, trans_b, out, alpha, beta});
}

}  // namespace kiln
