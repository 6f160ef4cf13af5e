// Registers the CUDA dropout kernel (core/cuda/dropout.cu) and the backward's composite.
#include "kiln/core/cuda/dropout.h"

#include "kiln/core/dispatch.h"
#include "kiln/core/op_table.h"
#include "kiln/core/ops/dropout.h"

namespace kiln::cuda {
namespace {

void forward_kernel(op::DropoutForward& o) {
  dropout_forward(o.x.numel(), o.seed, o.offset, o.p, o.scale, o.x.data<float>(), o.y.data<float>(),
                  o.mask.data<float>(), detail::prepare_cuda(o.x.device()));
}

const RegisterKernel<op::DropoutForward> kForward(Backend::cuda, forward_kernel, "fp32", "kiln");
const RegisterKernel<op::DropoutBackward> kBackward(Backend::cuda, op::DropoutBackward::as_binary,
                                                    "fp32", "composite");

}  // namespace
}  // namespace kiln::cuda
