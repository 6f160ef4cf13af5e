// Registers the CUDA softmax kernels (core/cuda/softmax.cu).
#include "kiln/core/cuda/softmax.h"

#include "kiln/core/dispatch.h"
#include "kiln/core/op_table.h"
#include "kiln/core/ops/softmax.h"

namespace kiln::cuda {
namespace {

template <bool kLog> void softmax_kernel(op::SoftmaxOf<kLog>& o) {
  const Tensor& x = o.x;  // named: o's type depends on kLog, its tensors' do not
  Tensor& y = o.y;
  softmax(o.rows, o.cols, x.data<float>(), y.data<float>(), kLog, detail::prepare_cuda(x.device()));
}

void cross_entropy_forward_kernel(op::SoftmaxCrossEntropyForward& o) {
  softmax_cross_entropy_forward(o.logits.size(0), o.logits.size(1), o.logits.data<float>(),
                                o.labels.data<std::int32_t>(), o.label_smoothing,
                                o.probs.data<float>(), o.losses.data<float>(), o.ignore_index,
                                o.counted ? o.counted->data<float>() : nullptr,
                                detail::prepare_cuda(o.logits.device()));
}

void cross_entropy_backward_kernel(op::SoftmaxCrossEntropyBackward& o) {
  softmax_cross_entropy_backward(o.probs.size(0), o.probs.size(1), o.probs.data<float>(),
                                 o.labels.data<std::int32_t>(), o.grad_scale, o.label_smoothing,
                                 o.ignore_index, o.divisor ? o.divisor->data<float>() : nullptr,
                                 o.dlogits.data<float>(), detail::prepare_cuda(o.probs.device()));
}

const RegisterKernel<op::Softmax> kSoftmax(Backend::cuda, softmax_kernel<false>, "fp32", "kiln");
const RegisterKernel<op::LogSoftmax> kLogSoftmax(Backend::cuda, softmax_kernel<true>, "fp32",
                                                 "kiln");
const RegisterKernel<op::SoftmaxCrossEntropyForward> kForward(Backend::cuda,
                                                              cross_entropy_forward_kernel, "fp32",
                                                              "kiln");
const RegisterKernel<op::SoftmaxCrossEntropyBackward> kBackward(Backend::cuda,
                                                                cross_entropy_backward_kernel,
                                                                "fp32", "kiln");

}  // namespace
}  // namespace kiln::cuda
