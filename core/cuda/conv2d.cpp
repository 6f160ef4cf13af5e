// Registers the CUDA convolutions (core/cuda/conv2d.cu, cuDNN in fp32 at every precision).
#include "kiln/core/cuda/conv2d.h"

#include "kiln/core/dispatch.h"
#include "kiln/core/op_table.h"
#include "kiln/core/ops/conv2d.h"

namespace kiln::cuda {
namespace {

void forward_kernel(op::Conv2dForward& o) {
  detail::check_fits_cudnn(o.kName, o.g);
  conv2d_forward(o.g, o.x.data<float>(), o.weight.data<float>(),
                 o.bias.defined() ? o.bias.data<float>() : nullptr, o.y.data<float>(),
                 detail::prepare_cuda(o.x.device()));
}
void backward_data_kernel(op::Conv2dBackwardData& o) {
  detail::check_fits_cudnn(o.kName, o.g);
  conv2d_backward_data(o.g, o.dy.data<float>(), o.weight.data<float>(), o.dx.data<float>(),
                       detail::prepare_cuda(o.dy.device()));
}
void backward_filter_kernel(op::Conv2dBackwardFilter& o) {
  detail::check_fits_cudnn(o.kName, o.g);
  conv2d_backward_filter(o.g, o.x.data<float>(), o.dy.data<float>(), o.dweight.data<float>(),
                         o.dbias.defined() ? o.dbias.data<float>() : nullptr,
                         detail::prepare_cuda(o.x.device()));
}

const RegisterKernel<op::Conv2dForward> kForward(Backend::cuda, forward_kernel, "fp32", "cuDNN");
const RegisterKernel<op::Conv2dBackwardData> kBackwardData(Backend::cuda, backward_data_kernel,
                                                           "fp32", "cuDNN");
const RegisterKernel<op::Conv2dBackwardFilter> kBackwardFilter(Backend::cuda,
                                                               backward_filter_kernel, "fp32",
                                                               "cuDNN");

}  // namespace
}  // namespace kiln::cuda
