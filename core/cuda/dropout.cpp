// Registers the CUDA dropout launch (core/cuda/dropout.cu) and the composite backward.
#include "kiln/core/ops/dropout.h"
#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln::cuda {
namespace {

const RegisterKernel<op::DropoutForward> kForward(Backend::cuda, on_stream<dropout_forward>, "fp32",
                                                  "kiln");
const RegisterKernel<op::DropoutBackward> kBackward(Backend::cuda, op::DropoutBackward::as_binary,
                                                    "fp32", "composite");

}  // namespace
}  // namespace kiln::cuda
