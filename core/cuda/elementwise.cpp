// Registers the CUDA elementwise launches (core/cuda/elementwise.cu) for binary, scale, axpy, fill.
#include "kiln/core/ops/elementwise.h"
#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln::cuda {
namespace {

const RegisterKernel<op::Binary> kBinary(Backend::cuda, on_stream<binary>, "fp32", "kiln");
const RegisterKernel<op::Scale> kScale(Backend::cuda, on_stream<scale>, "fp32", "kiln");
const RegisterKernel<op::Axpy> kAxpy(Backend::cuda, on_stream<axpy>, "fp32", "kiln");
const RegisterKernel<op::Fill> kFill(Backend::cuda, on_stream<fill>, "fp32", "kiln");

}  // namespace
}  // namespace kiln::cuda
