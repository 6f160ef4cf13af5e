// Registers the CUDA pooling kernels (core/cuda/pool2d.cu, cuDNN).
#include "kiln/core/cuda/pool2d.h"

#include "kiln/core/dispatch.h"
#include "kiln/core/op_table.h"
#include "kiln/core/ops/pool2d.h"

namespace kiln::cuda {
namespace {

void max_forward_kernel(op::MaxPool2dForward& o) {
  max_pool2d_forward(o.g, o.x.data<float>(), o.y.data<float>(), detail::prepare_cuda(o.x.device()));
}
void max_backward_kernel(op::MaxPool2dBackward& o) {
  max_pool2d_backward(o.g, o.x.data<float>(), o.y.data<float>(), o.dy.data<float>(),
                      o.dx.data<float>(), detail::prepare_cuda(o.x.device()));
}
void avg_forward_kernel(op::AvgPool2dForward& o) {
  avg_pool2d_forward(o.g, o.x.data<float>(), o.y.data<float>(), detail::prepare_cuda(o.x.device()));
}
void avg_backward_kernel(op::AvgPool2dBackward& o) {
  avg_pool2d_backward(o.g, o.x.data<float>(), o.y.data<float>(), o.dy.data<float>(),
                      o.dx.data<float>(), detail::prepare_cuda(o.x.device()));
}

const RegisterKernel<op::MaxPool2dForward> kMaxForward(Backend::cuda, max_forward_kernel, "fp32",
                                                       "cuDNN");
const RegisterKernel<op::MaxPool2dBackward> kMaxBackward(Backend::cuda, max_backward_kernel, "fp32",
                                                         "cuDNN");
const RegisterKernel<op::AvgPool2dForward> kAvgForward(Backend::cuda, avg_forward_kernel, "fp32",
                                                       "cuDNN");
const RegisterKernel<op::AvgPool2dBackward> kAvgBackward(Backend::cuda, avg_backward_kernel, "fp32",
                                                         "cuDNN");

}  // namespace
}  // namespace kiln::cuda
