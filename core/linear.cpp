// linear_forward: checks, then the CPU body or cuBLASLt with a fused epilogue; linear_backward:
// checks, then the CPU body (one fused pass and two products on oneDNN) or the GPU ops in turn.
#include "kiln/core/cpu/kernels.h"
#include "kiln/core/cuda/kernels.h"
#include "kiln/core/dispatch.h"
#include "kiln/core/ops.h"

namespace kiln {

namespace {

// The weight's bf16 copy: undefined, or bf16 of the weight's shape on the CPU. Returns its bits.
const std::uint16_t* bf16_copy(const char* op, const Tensor& weight, const Tensor& weight_bf16) {
  if (!weight_bf16.defined()) return nullptr;
  KILN_CHECK(weight_bf16.dtype() == DType::bf16 && weight_bf16.shape() == weight.shape() &&
                 weight_bf16.device().is_cpu() && weight.device().is_cpu(),
             "{}: weight_bf16 must be a bf16 copy of the CPU weight {}, found {}", op, weight.str(),
             weight_bf16.str());
  return static_cast<const std::uint16_t*>(weight_bf16.raw_data());
}

}  // namespace

void linear_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, Tensor& y, bool relu,
                    const Tensor& weight_bf16) {
  constexpr const char* op = "linear_forward";
  detail::check_operands(op, {{"x", &x}, {"weight", &weight}, {"y", &y}}, DType::f32);
  detail::check_same_device(op, {{"x", &x}, {"weight", &weight}, {"y", &y}});
  KILN_CHECK(x.rank() == 2 && weight.rank() == 2 && x.size(1) == weight.size(1),
             "linear_forward: x must be (N, in) and weight (out, in), found x {} and weight {}",
             x.shape().str(), weight.shape().str());
  const std::int64_t n = x.size(0), in = x.size(1), out = weight.size(0);
  detail::check_shape(op, {"y", &y}, Shape{n, out});
  const float* bias_data = nullptr;
  if (bias.defined()) {
    detail::check_operands(op, {{"bias", &bias}}, DType::f32);
    detail::check_same_device(op, {{"x", &x}, {"bias", &bias}});
    detail::check_shape(op, {"bias", &bias}, Shape{out});
    bias_data = bias.data<float>();
  }
  const std::uint16_t* w_bf16 = bf16_copy(op, weight, weight_bf16);
  if (x.device().is_cpu())
    return cpu::linear_forward(n, in, out, x.data<float>(), weight.data<float>(), w_bf16, bias_data, relu,
                               y.data<float>());
  KILN_ON_CUDA(op, cuda::linear_forward(n, in, out, x.data<float>(), weight.data<float>(), bias_data,
                                        relu, y.data<float>(), detail::prepare_cuda(x.device())));
}

void linear_backward(const Tensor& dy, const Tensor& x, const Tensor& weight, const Tensor& y,
                     Tensor& dweight, Tensor& dbias, Tensor* dx, Tensor& dpre, const Tensor& weight_bf16) {
  constexpr const char* op = "linear_backward";
  detail::check_operands(op, {{"dy", &dy}, {"x", &x}, {"weight", &weight}, {"dweight", &dweight}}, DType::f32);
  detail::check_same_device(op, {{"dy", &dy}, {"x", &x}, {"weight", &weight}, {"dweight", &dweight}});
  KILN_CHECK(x.rank() == 2 && weight.rank() == 2 && x.size(1) == weight.size(1),
             "linear_backward: x must be (N, in) and weight (out, in), found x {} and weight {}",
             x.shape().str(), weight.shape().str());
  const std::int64_t n = x.size(0), in = x.size(1), out = weight.size(0);
  detail::check_shape(op, {"dy", &dy}, Shape{n, out});
  detail::check_shape(op, {"dweight", &dweight}, weight.shape());
  if (y.defined()) {
    detail::check_operands(op, {{"y", &y}, {"dpre", &dpre}}, DType::f32);
    detail::check_same_device(op, {{"dy", &dy}, {"y", &y}, {"dpre", &dpre}});
    detail::check_shape(op, {"y", &y}, Shape{n, out});
    detail::check_shape(op, {"dpre", &dpre}, Shape{n, out});
  }
  if (dbias.defined()) {
    detail::check_operands(op, {{"dbias", &dbias}}, DType::f32);
    detail::check_same_device(op, {{"dy", &dy}, {"dbias", &dbias}});
    detail::check_shape(op, {"dbias", &dbias}, Shape{out});
  }
  if (dx != nullptr) {
    detail::check_operands(op, {{"dx", dx}}, DType::f32);
    detail::check_same_device(op, {{"dy", &dy}, {"dx", dx}});
    detail::check_shape(op, {"dx", dx}, Shape{n, in});
  }
  const std::uint16_t* w_bf16 = bf16_copy(op, weight, weight_bf16);
  if (dy.device().is_cpu())
    return cpu::linear_backward(n, in, out, dy.data<float>(), x.data<float>(), weight.data<float>(), w_bf16,
                                y.defined() ? y.data<float>() : nullptr, dweight.data<float>(),
                                dbias.defined() ? dbias.data<float>() : nullptr,
                                dx != nullptr ? dx->data<float>() : nullptr, y.defined() ? dpre.data<float>() : nullptr);
  // The GPU runs the same steps as the CPU reference, each its own op (kernel or cuBLAS call).
  const Tensor* g = &dy;
  if (y.defined()) {
    activation_backward(Activation::relu, y, y, dy, dpre);
    g = &dpre;
  }
  gemm(*g, true, x, false, dweight, 1.0f, 1.0f);
  if (dbias.defined()) bias_grad(*g, dbias);
  if (dx != nullptr) gemm(*g, false, weight, false, *dx);
}

std::int64_t linear_forward_fallbacks() {
#if KILN_CUDA
  return cuda::linear_forward_fallbacks();
#else
  return 0;
#endif
}

}  // namespace kiln
