// The causal_softmax ops' checks and public entry points.
#include "kiln/core/ops/causal_softmax.h"

#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln {

namespace {

// The first operand is (..., T, T); returns (rows, T).
std::pair<std::int64_t, std::int64_t> check_square(const char* op, const char* name,
                                                   const Tensor& t) {
  KILN_CHECK(t.rank() >= 2 && t.size(-1) == t.size(-2),
             "{}: {} must be (..., T, T) score matrices, found {}", op, name, t.shape().str());
  const std::int64_t cols = t.size(-1);
  return {cols > 0 ? t.numel() / cols : 0, cols};
}

}  // namespace

namespace op {

void CausalSoftmaxForward::check() {
  detail::check_alike(kName, {{"x", &x}, {"y", &y}}, DType::f32);
  const auto [rows, t] = check_square(kName, "x", x);
  record = {rows, t, x.data<float>(), y.data<float>(), scale};
}

void CausalSoftmaxBackward::check() {
  detail::check_alike(kName, {{"y", &y}, {"dy", &dy}, {"dx", &dx}}, DType::f32);
  const auto [rows, t] = check_square(kName, "y", y);
  record = {rows, t, y.data<float>(), dy.data<float>(), dx.data<float>(), scale};
}

}  // namespace op

void causal_softmax_forward(const Tensor& x, Tensor& y, float scale) {
  run(op::CausalSoftmaxForward{x, y, scale});
}

void causal_softmax_backward(const Tensor& y, const Tensor& dy, Tensor& dx, float scale) {
  run(op::CausalSoftmaxBackward{y, dy, dx, scale});
}

}  // namespace kiln
