// Registers the CUDA causal softmax kernels (core/cuda/causal_softmax.cu).
#include "kiln/core/cuda/causal_softmax.h"

#include "kiln/core/dispatch.h"
#include "kiln/core/op_table.h"
#include "kiln/core/ops/causal_softmax.h"

namespace kiln::cuda {
namespace {

void forward_kernel(op::CausalSoftmaxForward& o) {
  causal_softmax_forward(o.rows, o.t, o.x.data<float>(), o.y.data<float>(), o.scale,
                         detail::prepare_cuda(o.device()));
}
void backward_kernel(op::CausalSoftmaxBackward& o) {
  causal_softmax_backward(o.rows, o.t, o.y.data<float>(), o.dy.data<float>(), o.dx.data<float>(),
                          o.scale, detail::prepare_cuda(o.device()));
}

const RegisterKernel<op::CausalSoftmaxForward> kForward(Backend::cuda, forward_kernel, "fp32",
                                                        "kiln");
const RegisterKernel<op::CausalSoftmaxBackward> kBackward(Backend::cuda, backward_kernel, "fp32",
                                                          "kiln");

}  // namespace
}  // namespace kiln::cuda
