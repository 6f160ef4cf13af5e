// Registers the CUDA layer_norm launches (core/cuda/layer_norm.cu) for the layer_norm ops.
#include "kiln/core/ops/layer_norm.h"
#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln::cuda {
namespace {

const RegisterKernel<op::LayerNormForward> kForward(Backend::cuda, on_stream<layer_norm_forward>,
                                                    "fp32", "kiln");
const RegisterKernel<op::LayerNormBackward> kBackward(Backend::cuda, on_stream<layer_norm_backward>,
                                                      "fp32", "kiln");

}  // namespace
}  // namespace kiln::cuda
