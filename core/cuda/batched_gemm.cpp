// Registers the CUDA batched GEMM (core/cuda/batched_gemm.cu, cuBLAS at the matmul precision).
#include "kiln/core/ops/batched_gemm.h"
#include "kiln/core/op_table.h"
#include "kiln/core/operand_checks.h"

namespace kiln::cuda {
namespace {

const RegisterKernel<op::BatchedGemm> kBatchedGemm(Backend::cuda, on_stream<batched_gemm>,
                                                   "fp32 tf32 bf16", "cuBLAS");

}  // namespace
}  // namespace kiln::cuda
