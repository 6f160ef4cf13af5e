// The dropout ops' checks, public entry points, and the backward's composite kernel.
#include "kiln/core/ops/dropout.h"

#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"
#include "kiln/core/ops/elementwise.h"

namespace kiln {

namespace op {

void DropoutForward::check() {
  detail::check_alike(kName, {{"x", &x}, {"y", &y}, {"mask", &mask}}, DType::f32);
  KILN_CHECK(p >= 0.0f && p <= 1.0f, "{}: the drop probability must be in [0, 1], found {}", kName,
             p);
  // p == 1 drops everything (as PyTorch): the scale is never used, 0 avoids an infinity.
  scale = p < 1.0f ? 1.0f / (1.0f - p) : 0.0f;
  record = {x.numel(),         seed, offset, p, scale, x.data<float>(), y.data<float>(),
            mask.data<float>()};
}

void DropoutBackward::check() const {
  detail::check_alike(kName, {{"dy", &dy}, {"mask", &mask}, {"dx", &dx}}, DType::f32);
}

void DropoutBackward::as_binary(DropoutBackward& o) { binary(BinaryOp::mul, o.dy, o.mask, o.dx); }

}  // namespace op

void dropout_forward(const Tensor& x, Tensor& y, Tensor& mask, float p, std::uint64_t seed,
                     std::uint64_t offset) {
  run(op::DropoutForward{x, y, mask, p, seed, offset});
}

void dropout_backward(const Tensor& dy, const Tensor& mask, Tensor& dx) {
  run(op::DropoutBackward{dy, mask, dx});
}

}  // namespace kiln
