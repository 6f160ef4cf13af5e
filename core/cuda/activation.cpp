// Registers the CUDA activation launches (core/cuda/activation.cu) for the activation ops.
#include "kiln/core/ops/activation.h"
#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln::cuda {
namespace {

const RegisterKernel<op::ActivationForward> kForward(Backend::cuda, on_stream<activation_forward>,
                                                     "fp32", "kiln");
const RegisterKernel<op::ActivationBackward> kBackward(Backend::cuda,
                                                       on_stream<activation_backward>, "fp32",
                                                       "kiln");

}  // namespace
}  // namespace kiln::cuda
