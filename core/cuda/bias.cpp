// Registers the CUDA bias launches (core/cuda/bias.cu) for the bias ops.
#include "kiln/core/ops/bias.h"
#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln::cuda {
namespace {

const RegisterKernel<op::BiasAdd> kAdd(Backend::cuda, on_stream<bias_add>, "fp32", "kiln");
const RegisterKernel<op::BiasGrad> kGrad(Backend::cuda, on_stream<bias_grad>, "fp32", "kiln");

}  // namespace
}  // namespace kiln::cuda
