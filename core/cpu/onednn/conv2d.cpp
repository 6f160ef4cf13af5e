// Registers oneDNN's convolutions (conv.cpp) for the conv2d ops. An empty batch, and the
// geometries oneDNN cannot express (supports_conv), take the reference kernel.
#include "kiln/core/ops/conv2d.h"
#include "kiln/core/cpu/onednn/onednn.h"
#include "kiln/core/op_table.h"
#include "kiln/core/precision.h"

namespace kiln::cpu::onednn {
namespace {

template <typename Op> bool supports(const Op& o) {
  return o.record.g.n > 0 && supports_conv(o.record.g);
}

// At the process's matmul precision.
template <auto Conv, typename Record> void body(const Record& o) { Conv(o, bf16_products()); }

const RegisterKernel<op::Conv2dForward> kForward(
    Backend::onednn, on_record<body<conv2d_forward, rec::Conv2dForward>>, "fp32 bf16", "oneDNN",
    supports<op::Conv2dForward>);
const RegisterKernel<op::Conv2dBackwardData> kBackwardData(
    Backend::onednn, on_record<body<conv2d_backward_data, rec::Conv2dBackwardData>>, "fp32 bf16",
    "oneDNN", supports<op::Conv2dBackwardData>);
const RegisterKernel<op::Conv2dBackwardFilter> kBackwardFilter(
    Backend::onednn, on_record<body<conv2d_backward_filter, rec::Conv2dBackwardFilter>>,
    "fp32 bf16", "oneDNN", supports<op::Conv2dBackwardFilter>);

}  // namespace
}  // namespace kiln::cpu::onednn
