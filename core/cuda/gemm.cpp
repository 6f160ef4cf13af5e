// Registers the CUDA GEMM (core/cuda/gemm.cu, cuBLAS at the process's matmul precision).
#include "kiln/core/ops/gemm.h"
#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln::cuda {
namespace {

const RegisterKernel<op::Gemm> kGemm(Backend::cuda, on_stream<gemm>, "fp32 tf32 bf16", "cuBLAS");

}  // namespace
}  // namespace kiln::cuda
