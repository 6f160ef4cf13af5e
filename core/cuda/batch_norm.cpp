// Registers the CUDA batch_norm launches (core/cuda/batch_norm.cu) for the batch_norm ops.
#include "kiln/core/ops/batch_norm.h"
#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln::cuda {
namespace {

const RegisterKernel<op::BatchNormForwardTrain> kTrain(Backend::cuda,
                                                       on_stream<batch_norm_forward_train>, "fp32",
                                                       "kiln");
const RegisterKernel<op::BatchNormForwardEval> kEval(Backend::cuda,
                                                     on_stream<batch_norm_forward_eval>, "fp32",
                                                     "kiln");
const RegisterKernel<op::BatchNormBackward> kBackward(Backend::cuda, on_stream<batch_norm_backward>,
                                                      "fp32", "kiln");

}  // namespace
}  // namespace kiln::cuda
