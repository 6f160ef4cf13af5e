// The elementwise ops' checks and public entry points.
#include "kiln/core/ops/elementwise.h"

#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln {

namespace op {

void Binary::check() {
  detail::check_alike(kName, {{"a", &a}, {"b", &b}, {"out", &out}}, DType::f32);
  record = {f, a.numel(), a.data<float>(), b.data<float>(), out.data<float>()};
}

void Scale::check() {
  detail::check_operands(kName, {{"x", &x}}, DType::f32);
  record = {x.numel(), alpha, x.data<float>()};
}

void Axpy::check() {
  detail::check_alike(kName, {{"x", &x}, {"y", &y}}, DType::f32);
  record = {x.numel(), alpha, x.data<float>(), y.data<float>()};
}

void Fill::check() {
  KILN_CHECK(x.defined(), "fill: x is an undefined tensor");
  if (x.dtype() == DType::i32) {
    const auto v = static_cast<std::int32_t>(value);
    KILN_CHECK(static_cast<float>(v) == value, "fill: {} is not an int32 value for {}", value,
               x.str());
    record = {x.numel(), value, nullptr, x.data<std::int32_t>()};
    return;
  }
  detail::check_operands(kName, {{"x", &x}}, DType::f32);
  record = {x.numel(), value, x.data<float>(), nullptr};
}

}  // namespace op

void binary(BinaryOp f, const Tensor& a, const Tensor& b, Tensor& out) {
  run(op::Binary{f, a, b, out});
}
void scale(Tensor& x, float alpha) { run(op::Scale{x, alpha}); }
void axpy(float alpha, const Tensor& x, Tensor& y) { run(op::Axpy{alpha, x, y}); }
void fill(Tensor& x, float value) { run(op::Fill{x, value}); }

}  // namespace kiln
