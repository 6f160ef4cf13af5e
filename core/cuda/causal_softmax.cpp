// Registers the CUDA causal_softmax launches (core/cuda/causal_softmax.cu) for the causal_softmax
// ops.
#include "kiln/core/ops/causal_softmax.h"
#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln::cuda {
namespace {

const RegisterKernel<op::CausalSoftmaxForward> kForward(Backend::cuda,
                                                        on_stream<causal_softmax_forward>, "fp32",
                                                        "kiln");
const RegisterKernel<op::CausalSoftmaxBackward> kBackward(Backend::cuda,
                                                          on_stream<causal_softmax_backward>,
                                                          "fp32", "kiln");

}  // namespace
}  // namespace kiln::cuda
