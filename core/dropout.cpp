// dropout: a Philox mask keyed on (seed, offset + element index), identical on both devices,
// kept for backward. The keep scale 1 / (1 - p) is computed once here, so both backends
// multiply by the very same float.
#include "kiln/core/cpu/kernels.h"
#include "kiln/core/cuda/kernels.h"
#include "kiln/core/dispatch.h"
#include "kiln/core/ops.h"

namespace kiln {

void dropout_forward(const Tensor& x, Tensor& y, Tensor& mask, float p, std::uint64_t seed,
                     std::uint64_t offset) {
  constexpr const char* op = "dropout_forward";
  detail::check_operands(op, {{"x", &x}, {"y", &y}, {"mask", &mask}}, DType::f32);
  detail::check_same_device(op, {{"x", &x}, {"y", &y}, {"mask", &mask}});
  detail::check_same_shape(op, {{"x", &x}, {"y", &y}, {"mask", &mask}});
  KILN_CHECK(p >= 0.0f && p <= 1.0f, "{}: the drop probability must be in [0, 1], found {}", op, p);
  // p == 1 drops everything (as PyTorch): the scale is never used, 0 avoids an infinity.
  const float scale = p < 1.0f ? 1.0f / (1.0f - p) : 0.0f;
  if (x.device().is_cpu())
    return cpu::dropout_forward(x.numel(), seed, offset, p, scale, x.data<float>(), y.data<float>(),
                                mask.data<float>());
  KILN_ON_CUDA(
      op, cuda::dropout_forward(x.numel(), seed, offset, p, scale, x.data<float>(), y.data<float>(),
                                mask.data<float>(), detail::prepare_cuda(x.device())));
}

void dropout_backward(const Tensor& dy, const Tensor& mask, Tensor& dx) {
  constexpr const char* op = "dropout_backward";
  detail::check_operands(op, {{"dy", &dy}, {"mask", &mask}, {"dx", &dx}}, DType::f32);
  detail::check_same_device(op, {{"dy", &dy}, {"mask", &mask}, {"dx", &dx}});
  detail::check_same_shape(op, {{"dy", &dy}, {"mask", &mask}, {"dx", &dx}});
  binary(BinaryOp::mul, dy, mask, dx);
}

}  // namespace kiln
