// Registers the CUDA pooling launches (core/cuda/pool2d.cu, cuDNN) for the pooling ops.
#include "kiln/core/ops/pool2d.h"
#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln::cuda {
namespace {

const RegisterKernel<op::MaxPool2dForward> kMaxForward(Backend::cuda, on_stream<max_pool2d_forward>,
                                                       "fp32", "cuDNN");
const RegisterKernel<op::MaxPool2dBackward> kMaxBackward(Backend::cuda,
                                                         on_stream<max_pool2d_backward>, "fp32",
                                                         "cuDNN");
const RegisterKernel<op::AvgPool2dForward> kAvgForward(Backend::cuda, on_stream<avg_pool2d_forward>,
                                                       "fp32", "cuDNN");
const RegisterKernel<op::AvgPool2dBackward> kAvgBackward(Backend::cuda,
                                                         on_stream<avg_pool2d_backward>, "fp32",
                                                         "cuDNN");

}  // namespace
}  // namespace kiln::cuda
