// gemm's checks and public entry point, and matmul, which allocates and calls it.
#include "kiln/core/ops/gemm.h"

#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln {

void op::Gemm::check() {
  detail::check_operands(kName, {{"a", &a}, {"b", &b}, {"out", &out}}, DType::f32);
  detail::check_same_device(kName, {{"a", &a}, {"b", &b}, {"out", &out}});
  KILN_CHECK(a.rank() == 2 && b.rank() == 2 && out.rank() == 2,
             "gemm: a, b and out must be matrices, found a {}, b {}, out {}", a.shape().str(),
             b.shape().str(), out.shape().str());
  const std::int64_t m = trans_a ? a.size(1) : a.size(0);
  const std::int64_t k = trans_a ? a.size(0) : a.size(1);
  const std::int64_t kb = trans_b ? b.size(1) : b.size(0);
  const std::int64_t n = trans_b ? b.size(0) : b.size(1);
  KILN_CHECK(k == kb, "gemm: inner dimensions differ: op(a) is ({}, {}) and op(b) is ({}, {})", m,
             k, kb, n);
  detail::check_shape(kName, {"out", &out}, Shape{m, n});
  record = {trans_a, trans_b,          m, n, k, alpha, a.data<float>(), b.data<float>(),
            beta,    out.data<float>()};
}

void gemm(const Tensor& a, bool trans_a, const Tensor& b, bool trans_b, Tensor& out, float alpha,
          float beta) {
  run(op::Gemm{a, trans_a, b, trans_b, out, alpha, beta});
}

Tensor matmul(const Tensor& a, const Tensor& b, bool trans_a, bool trans_b) {
  KILN_CHECK(a.defined() && b.defined() && a.rank() == 2 && b.rank() == 2,
             "matmul: a and b must be matrices, found a {}, b {}", a.str(), b.str());
  Tensor out =
      Tensor::empty(Shape{trans_a ? a.size(1) : a.size(0), trans_b ? b.size(0) : b.size(1)},
                    DType::f32, a.device());
  gemm(a, trans_a, b, trans_b, out);
  return out;
}

}  // namespace kiln
