// Registers the CUDA softmax launches (core/cuda/softmax.cu) for the softmax ops.
#include "kiln/core/ops/softmax.h"
#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln::cuda {
namespace {

const RegisterKernel<op::Softmax> kSoftmax(Backend::cuda, on_stream<softmax>, "fp32", "kiln");
const RegisterKernel<op::LogSoftmax> kLogSoftmax(Backend::cuda, on_stream<softmax>, "fp32", "kiln");
const RegisterKernel<op::SoftmaxCrossEntropyForward> kForward(
    Backend::cuda, on_stream<softmax_cross_entropy_forward>, "fp32", "kiln");
const RegisterKernel<op::SoftmaxCrossEntropyBackward> kBackward(
    Backend::cuda, on_stream<softmax_cross_entropy_backward>, "fp32", "kiln");

}  // namespace
}  // namespace kiln::cuda
