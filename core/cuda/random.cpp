// Registers the CUDA random launches (core/cuda/random.cu) for the random ops.
#include "kiln/core/ops/random.h"
#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln::cuda {
namespace {

const RegisterKernel<op::Uniform> kUniform(Backend::cuda, on_stream<uniform>, "fp32", "kiln");
const RegisterKernel<op::Normal> kNormal(Backend::cuda, on_stream<normal>, "fp32", "kiln");

}  // namespace
}  // namespace kiln::cuda
