// Registers the CUDA batch_norm kernels (core/cuda/batch_norm.cu).
#include "kiln/core/cuda/batch_norm.h"

#include "kiln/core/dispatch.h"
#include "kiln/core/op_table.h"
#include "kiln/core/ops/batch_norm.h"

namespace kiln::cuda {
namespace {

void train_kernel(op::BatchNormForwardTrain& o) {
  batch_norm_forward_train(o.s.n, o.s.c, o.s.l, o.x.data<float>(), o.gamma.data<float>(),
                           o.beta.data<float>(), o.momentum, o.eps, o.running_mean.data<float>(),
                           o.running_var.data<float>(), o.y.data<float>(),
                           o.save_mean.data<float>(), o.save_invstd.data<float>(),
                           detail::prepare_cuda(o.x.device()));
}
void eval_kernel(op::BatchNormForwardEval& o) {
  batch_norm_forward_eval(o.s.n, o.s.c, o.s.l, o.x.data<float>(), o.gamma.data<float>(),
                          o.beta.data<float>(), o.running_mean.data<float>(),
                          o.running_var.data<float>(), o.eps, o.y.data<float>(),
                          detail::prepare_cuda(o.x.device()));
}
void backward_kernel(op::BatchNormBackward& o) {
  batch_norm_backward(o.s.n, o.s.c, o.s.l, o.x.data<float>(), o.dy.data<float>(),
                      o.gamma.data<float>(), o.save_mean.data<float>(), o.save_invstd.data<float>(),
                      o.dx.data<float>(), o.dgamma.data<float>(), o.dbeta.data<float>(),
                      detail::prepare_cuda(o.x.device()));
}

const RegisterKernel<op::BatchNormForwardTrain> kTrain(Backend::cuda, train_kernel, "fp32", "kiln");
const RegisterKernel<op::BatchNormForwardEval> kEval(Backend::cuda, eval_kernel, "fp32", "kiln");
const RegisterKernel<op::BatchNormBackward> kBackward(Backend::cuda, backward_kernel, "fp32",
                                                      "kiln");

}  // namespace
}  // namespace kiln::cuda
