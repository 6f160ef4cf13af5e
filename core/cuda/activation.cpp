// Registers the CUDA activation kernels (core/cuda/activation.cu).
#include "kiln/core/cuda/activation.h"

#include "kiln/core/dispatch.h"
#include "kiln/core/op_table.h"
#include "kiln/core/ops/activation.h"

namespace kiln::cuda {
namespace {

void forward_kernel(op::ActivationForward& o) {
  activation_forward(o.f, o.x.numel(), o.x.data<float>(), o.y.data<float>(), o.alpha,
                     detail::prepare_cuda(o.x.device()));
}
void backward_kernel(op::ActivationBackward& o) {
  activation_backward(o.f, o.x.numel(), o.x.data<float>(), o.y.data<float>(), o.dy.data<float>(),
                      o.dx.data<float>(), o.alpha, detail::prepare_cuda(o.x.device()));
}

const RegisterKernel<op::ActivationForward> kForward(Backend::cuda, forward_kernel, "fp32", "kiln");
const RegisterKernel<op::ActivationBackward> kBackward(Backend::cuda, backward_kernel, "fp32",
                                                       "kiln");

}  // namespace
}  // namespace kiln::cuda
