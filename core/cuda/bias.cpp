// Registers the CUDA bias kernels (core/cuda/bias.cu).
#include "kiln/core/cuda/bias.h"

#include "kiln/core/dispatch.h"
#include "kiln/core/op_table.h"
#include "kiln/core/ops/bias.h"

namespace kiln::cuda {
namespace {

void add_kernel(op::BiasAdd& o) {
  bias_add(o.rows, o.cols, o.bias.data<float>(), o.y.data<float>(),
           detail::prepare_cuda(o.y.device()));
}
void grad_kernel(op::BiasGrad& o) {
  bias_grad(o.rows, o.cols, o.dy.data<float>(), o.dbias.data<float>(),
            detail::prepare_cuda(o.dy.device()));
}

const RegisterKernel<op::BiasAdd> kAdd(Backend::cuda, add_kernel, "fp32", "kiln");
const RegisterKernel<op::BiasGrad> kGrad(Backend::cuda, grad_kernel, "fp32", "kiln");

}  // namespace
}  // namespace kiln::cuda
