// linear_forward: checks, then the CPU body or cuBLASLt with a fused epilogue.
#include "kiln/core/cpu/kernels.h"
#include "kiln/core/cuda/kernels.h"
#include "kiln/core/dispatch.h"
#include "kiln/core/ops.h"

namespace kiln {

void linear_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, Tensor& y, bool relu) {
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
  if (x.device().is_cpu())
    return cpu::linear_forward(n, in, out, x.data<float>(), weight.data<float>(), bias_data, relu,
                               y.data<float>());
  KILN_ON_CUDA(op, cuda::linear_forward(n, in, out, x.data<float>(), weight.data<float>(), bias_data,
                                        relu, y.data<float>(), detail::prepare_cuda(x.device())));
}

std::int64_t linear_forward_fallbacks() {
#if KILN_CUDA
  return cuda::linear_forward_fallbacks();
#else
  return 0;
#endif
}

}  // namespace kiln
