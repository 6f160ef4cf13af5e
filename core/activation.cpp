// Elementwise activations and their derivatives.
#include "kiln/core/cpu/kernels.h"
#include "kiln/core/cuda/kernels.h"
#include "kiln/core/dispatch.h"
#include "kiln/core/ops.h"

namespace kiln {

void activation_forward(Activation f, const Tensor& x, Tensor& y, float alpha) {
  constexpr const char* op = "activation_forward";
  detail::check_operands(op, {{"x", &x}, {"y", &y}}, DType::f32);
  detail::check_same_device(op, {{"x", &x}, {"y", &y}});
  detail::check_same_shape(op, {{"x", &x}, {"y", &y}});
  if (x.device().is_cpu())
    return cpu::activation_forward(f, x.numel(), x.data<float>(), y.data<float>(), alpha);
  KILN_ON_CUDA(op, cuda::activation_forward(f, x.numel(), x.data<float>(), y.data<float>(), alpha,
                                            detail::prepare_cuda(x.device())));
}

void activation_backward(Activation f, const Tensor& x, const Tensor& y, const Tensor& dy,
                         Tensor& dx, float alpha) {
  constexpr const char* op = "activation_backward";
  detail::check_operands(op, {{"x", &x}, {"y", &y}, {"dy", &dy}, {"dx", &dx}}, DType::f32);
  detail::check_same_device(op, {{"x", &x}, {"y", &y}, {"dy", &dy}, {"dx", &dx}});
  detail::check_same_shape(op, {{"x", &x}, {"y", &y}, {"dy", &dy}, {"dx", &dx}});
  if (x.device().is_cpu())
    return cpu::activation_backward(f, x.numel(), x.data<float>(), y.data<float>(),
                                    dy.data<float>(), dx.data<float>(), alpha);
  KILN_ON_CUDA(op, cuda::activation_backward(f, x.numel(), x.data<float>(), y.data<float>(),
                                             dy.data<float>(), dx.data<float>(), alpha,
                                             detail::prepare_cuda(x.device())));
}

}  // namespace kiln
