// Elementwise binary ops, scale, axpy and fill.
#include "kiln/core/cpu/kernels.h"
#include "kiln/core/cuda/kernels.h"
#include "kiln/core/dispatch.h"
#include "kiln/core/ops.h"

namespace kiln {

void binary(BinaryOp f, const Tensor& a, const Tensor& b, Tensor& out) {
  constexpr const char* op = "binary";
  detail::check_operands(op, {{"a", &a}, {"b", &b}, {"out", &out}}, DType::f32);
  detail::check_same_device(op, {{"a", &a}, {"b", &b}, {"out", &out}});
  detail::check_same_shape(op, {{"a", &a}, {"b", &b}, {"out", &out}});
  if (a.device().is_cpu())
    return cpu::binary(f, a.numel(), a.data<float>(), b.data<float>(), out.data<float>());
  KILN_ON_CUDA(op, cuda::binary(f, a.numel(), a.data<float>(), b.data<float>(), out.data<float>(),
                                detail::prepare_cuda(a.device())));
}

void scale(Tensor& x, float alpha) {
  constexpr const char* op = "scale";
  detail::check_operands(op, {{"x", &x}}, DType::f32);
  if (x.device().is_cpu()) return cpu::scale(x.numel(), alpha, x.data<float>());
  KILN_ON_CUDA(op, cuda::scale(x.numel(), alpha, x.data<float>(), detail::prepare_cuda(x.device())));
}

void axpy(float alpha, const Tensor& x, Tensor& y) {
  constexpr const char* op = "axpy";
  detail::check_operands(op, {{"x", &x}, {"y", &y}}, DType::f32);
  detail::check_same_device(op, {{"x", &x}, {"y", &y}});
  detail::check_same_shape(op, {{"x", &x}, {"y", &y}});
  if (x.device().is_cpu()) return cpu::axpy(x.numel(), alpha, x.data<float>(), y.data<float>());
  KILN_ON_CUDA(op, cuda::axpy(x.numel(), alpha, x.data<float>(), y.data<float>(),
                              detail::prepare_cuda(x.device())));
}

void fill(Tensor& x, float value) {
  constexpr const char* op = "fill";
  KILN_CHECK(x.defined(), "fill: x is an undefined tensor");
  if (x.dtype() == DType::i32) {
    const auto v = static_cast<std::int32_t>(value);
    KILN_CHECK(static_cast<float>(v) == value, "fill: {} is not an int32 value for {}", value, x.str());
    if (x.device().is_cpu()) return cpu::fill(x.numel(), v, x.data<std::int32_t>());
    KILN_ON_CUDA(op, cuda::fill(x.numel(), v, x.data<std::int32_t>(), detail::prepare_cuda(x.device())));
    return;
  }
  detail::check_operands(op, {{"x", &x}}, DType::f32);
  if (x.device().is_cpu()) return cpu::fill(x.numel(), value, x.data<float>());
  KILN_ON_CUDA(op, cuda::fill(x.numel(), value, x.data<float>(), detail::prepare_cuda(x.device())));
}

}  // namespace kiln
