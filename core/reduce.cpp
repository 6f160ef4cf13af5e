// Reductions along one axis, argmax, and the sum of squares.
#include "kiln/core/cpu/kernels.h"
#include "kiln/core/cuda/kernels.h"
#include "kiln/core/dispatch.h"
#include "kiln/core/ops.h"

namespace kiln {

namespace {
struct AxisSplit {
  std::int64_t outer, n, inner;
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

void reduce(ReduceOp f, const Tensor& x, int axis, Tensor& out) {
  constexpr const char* op = "reduce";
  detail::check_operands(op, {{"x", &x}, {"out", &out}}, DType::f32);
  detail::check_same_device(op, {{"x", &x}, {"out", &out}});
  const AxisSplit s = split_at_axis(op, x, axis, out);
  if (x.device().is_cpu())
    return cpu::reduce(f, s.outer, s.n, s.inner, x.data<float>(), out.data<float>());
  KILN_ON_CUDA(op, cuda::reduce(f, s.outer, s.n, s.inner, x.data<float>(), out.data<float>(),
                                detail::prepare_cuda(x.device())));
}

void argmax(const Tensor& x, int axis, Tensor& out) {
  constexpr const char* op = "argmax";
  detail::check_operands(op, {{"x", &x}}, DType::f32);
  detail::check_operands(op, {{"out", &out}}, DType::i32);
  detail::check_same_device(op, {{"x", &x}, {"out", &out}});
  const AxisSplit s = split_at_axis(op, x, axis, out);
  if (x.device().is_cpu())
    return cpu::argmax(s.outer, s.n, s.inner, x.data<float>(), out.data<std::int32_t>());
  KILN_ON_CUDA(op, cuda::argmax(s.outer, s.n, s.inner, x.data<float>(), out.data<std::int32_t>(),
                                detail::prepare_cuda(x.device())));
}

void sum_squares(const Tensor& x, Tensor& out) {
  constexpr const char* op = "sum_squares";
  detail::check_operands(op, {{"x", &x}, {"out", &out}}, DType::f32);
  detail::check_same_device(op, {{"x", &x}, {"out", &out}});
  detail::check_shape(op, {"out", &out}, Shape{1});
  if (x.device().is_cpu()) return cpu::sum_squares(x.numel(), x.data<float>(), out.data<float>());
  KILN_ON_CUDA(op, cuda::sum_squares(x.numel(), x.data<float>(), out.data<float>(),
                                     detail::prepare_cuda(x.device())));
}

}  // namespace kiln
