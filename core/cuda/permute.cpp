// Registers the CUDA permute launch (core/cuda/permute.cu).
#include "kiln/core/ops/permute.h"
#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln::cuda {
namespace {

const RegisterKernel<op::Permute> kPermute(Backend::cuda, on_stream<permute>, "fp32", "kiln");

}  // namespace
}  // namespace kiln::cuda
