// The activation ops' checks and public entry points.
#include "kiln/core/ops/activation.h"

#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln {

namespace op {

void ActivationForward::check() {
  detail::check_alike(kName, {{"x", &x}, {"y", &y}}, DType::f32);
  record = {f, x.numel(), x.data<float>(), y.data<float>(), alpha};
}

void ActivationBackward::check() {
  detail::check_alike(kName, {{"x", &x}, {"y", &y}, {"dy", &dy}, {"dx", &dx}}, DType::f32);
  record = {f,    x.numel(), x.data<float>(), y.data<float>(), dy.data<float>(), dx.data<float>(),
            alpha};
}

}  // namespace op

void activation_forward(Activation f, const Tensor& x, Tensor& y, float alpha) {
  run(op::ActivationForward{f, x, y, alpha});
}

void activation_backward(Activation f, const Tensor& x, const Tensor& y, const Tensor& dy,
                         Tensor& dx, float alpha) {
  run(op::ActivationBackward{f, x, y, dy, dx, alpha});
}

}  // namespace kiln
