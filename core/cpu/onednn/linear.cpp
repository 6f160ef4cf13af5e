// Registers oneDNN's Linear forward and backward (matmul.cpp). oneDNN refuses empty matrices;
// those (nothing to multiply) take the reference kernel.
#include "kiln/core/ops/linear.h"
#include "kiln/core/cpu/onednn/onednn.h"
#include "kiln/core/op_table.h"
#include "kiln/core/precision.h"

namespace kiln::cpu::onednn {
namespace {

template <typename Op> bool supports(const Op& o) { return o.n > 0 && o.in > 0 && o.out > 0; }

float* data_or_null(const Tensor& t) { return t.defined() ? t.data<float>() : nullptr; }

void forward_kernel(op::LinearForward& o) {
  linear_forward(o.n, o.in, o.out, o.x.data<float>(), o.weight.data<float>(), o.w_bf16,
                 data_or_null(o.bias), o.relu, o.y.data<float>(), bf16_products());
}
void backward_kernel(op::LinearBackward& o) {
  linear_backward(o.n, o.in, o.out, o.dy.data<float>(), o.x.data<float>(), o.weight.data<float>(),
                  o.w_bf16, data_or_null(o.y), o.dweight.data<float>(), data_or_null(o.dbias),
                  o.dx != nullptr ? o.dx->data<float>() : nullptr,
                  o.y.defined() ? o.dpre.data<float>() : nullptr, bf16_products());
}

const RegisterKernel<op::LinearForward> kForward(Backend::onednn, forward_kernel, "fp32 bf16",
                                                 "oneDNN", supports<op::LinearForward>);
const RegisterKernel<op::LinearBackward> kBackward(Backend::onednn, backward_kernel, "fp32 bf16",
                                                   "oneDNN", supports<op::LinearBackward>);

}  // namespace
}  // namespace kiln::cpu::onednn
