// The reduction ops' checks and public entry points.
#include "kiln/core/ops/reduce.h"

#include <vector>

#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln {

namespace {
// x viewed as (outer, n, inner) around the axis; out as (outer, inner).
struct AxisSplit {
  std::int64_t outer = 0, n = 0, inner = 0;
};

// Views x as (outer, n, inner) around `axis` and checks out has x's shape without that axis.
AxisSplit split_at_axis(const char* op, const Tensor& x, int axis, const Tensor& out) {
  const int a = x.shape().axis(axis);
  std::vector<std::int64_t> kept;
  for (int i = 0; i < x.rank(); ++i)
    if (i != a) kept.push_back(x.shape()[i]);
  detail::check_shape(op, {"out", &out}, Shape(kept));
  const AxisSplit split{x.shape().product(0, a), x.shape()[a], x.shape().product(a + 1, x.rank())};
  KILN_CHECK(split.n > 0 || split.outer * split.inner == 0,
             "{}: cannot reduce over axis {} of length 0 in {}", op, a, x.shape().str());
  return split;
}
}  // namespace

namespace op {

void Reduce::check() {
  detail::check_operands(kName, {{"x", &x}, {"out", &out}}, DType::f32);
  detail::check_same_device(kName, {{"x", &x}, {"out", &out}});
  const AxisSplit s = split_at_axis(kName, x, axis, out);
  record = {f, s.outer, s.n, s.inner, x.data<float>(), out.data<float>()};
}

void Argmax::check() {
  detail::check_operands(kName, {{"x", &x}}, DType::f32);
  detail::check_operands(kName, {{"out", &out}}, DType::i32);
  detail::check_same_device(kName, {{"x", &x}, {"out", &out}});
  const AxisSplit s = split_at_axis(kName, x, axis, out);
  record = {s.outer, s.n, s.inner, x.data<float>(), out.data<std::int32_t>()};
}

void SumSquares::check() {
  detail::check_operands(kName, {{"x", &x}, {"out", &out}}, DType::f32);
  detail::check_same_device(kName, {{"x", &x}, {"out", &out}});
  detail::check_shape(kName, {"out", &out}, Shape{1});
  record = {x.numel(), x.data<float>(), out.data<float>()};
}

}  // namespace op

void reduce(ReduceOp f, const Tensor& x, int axis, Tensor& out) {
  run(op::Reduce{f, x, axis, out});
}
void argmax(const Tensor& x, int axis, Tensor& out) { run(op::Argmax{x, axis, out}); }
void sum_squares(const Tensor& x, Tensor& out) { run(op::SumSquares{x, out}); }

}  // namespace kiln
