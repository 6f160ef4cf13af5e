// Registers oneDNN's convolutions (conv.cpp) for the conv2d ops. An empty batch, and the
// geometries oneDNN cannot express (supports_conv), take the reference kernel.
#include "kiln/core/ops/conv2d.h"
#include "kiln/core/cpu/onednn/onednn.h"
#include "kiln/core/op_table.h"
#include "kiln/core/precision.h"

namespace kiln::cpu::onednn {
namespace {

template <typename Op> bool supports(const Op& o) { return o.g.n > 0 && supports_conv(o.g); }

void forward_kernel(op::Conv2dForward& o) {
  conv2d_forward(o.g, o.x.data<float>(), o.weight.data<float>(),
                 o.bias.defined() ? o.bias.data<float>() : nullptr, o.y.data<float>(),
                 bf16_products());
}
void backward_data_kernel(op::Conv2dBackwardData& o) {
  conv2d_backward_data(o.g, o.dy.data<float>(), o.weight.data<float>(), o.dx.data<float>(),
                       bf16_products());
}
void backward_filter_kernel(op::Conv2dBackwardFilter& o) {
  conv2d_backward_filter(o.g, o.x.data<float>(), o.dy.data<float>(), o.dweight.data<float>(),
                         o.dbias.defined() ? o.dbias.data<float>() : nullptr, bf16_products());
}

const RegisterKernel<op::Conv2dForward> kForward(Backend::onednn, forward_kernel, "fp32 bf16",
                                                 "oneDNN", supports<op::Conv2dForward>);
const RegisterKernel<op::Conv2dBackwardData> kBackwardData(Backend::onednn, backward_data_kernel,
                                                           "fp32 bf16", "oneDNN",
                                                           supports<op::Conv2dBackwardData>);
const RegisterKernel<op::Conv2dBackwardFilter> kBackwardFilter(Backend::onednn,
                                                               backward_filter_kernel, "fp32 bf16",
                                                               "oneDNN",
                                                               supports<op::Conv2dBackwardFilter>);

}  // namespace
}  // namespace kiln::cpu::onednn
