// Registers the CUDA layer_norm kernels (core/cuda/layer_norm.cu).
#include "kiln/core/cuda/layer_norm.h"

#include "kiln/core/dispatch.h"
#include "kiln/core/op_table.h"
#include "kiln/core/ops/layer_norm.h"

namespace kiln::cuda {
namespace {

void forward_kernel(op::LayerNormForward& o) {
  layer_norm_forward(o.rows, o.cols, o.x.data<float>(), o.gamma.data<float>(), o.beta.data<float>(),
                     o.eps, o.y.data<float>(), o.save_mean.data<float>(),
                     o.save_invstd.data<float>(), detail::prepare_cuda(o.x.device()));
}
void backward_kernel(op::LayerNormBackward& o) {
  layer_norm_backward(o.rows, o.cols, o.dy.data<float>(), o.x.data<float>(), o.gamma.data<float>(),
                      o.save_mean.data<float>(), o.save_invstd.data<float>(), o.dx.data<float>(),
                      o.dgamma.data<float>(), o.dbeta.data<float>(),
                      detail::prepare_cuda(o.x.device()));
}

const RegisterKernel<op::LayerNormForward> kForward(Backend::cuda, forward_kernel, "fp32", "kiln");
const RegisterKernel<op::LayerNormBackward> kBackward(Backend::cuda, backward_kernel, "fp32",
                                                      "kiln");

}  // namespace
}  // namespace kiln::cuda
