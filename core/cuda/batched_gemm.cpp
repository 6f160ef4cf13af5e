// Registers the CUDA batched GEMM (core/cuda/batched_gemm.cu, cuBLAS at the matmul precision).
#include "kiln/core/cuda/batched_gemm.h"

#include "kiln/core/dispatch.h"
#include "kiln/core/op_table.h"
#include "kiln/core/ops/batched_gemm.h"

namespace kiln::cuda {
namespace {

void kernel(op::BatchedGemm& o) {
  batched_gemm(o.trans_a, o.trans_b, o.batch, o.m, o.n, o.k, o.alpha, o.a.data<float>(),
               o.b.data<float>(), o.beta, o.out.data<float>(), detail::prepare_cuda(o.device()));
}

const RegisterKernel<op::BatchedGemm> kBatchedGemm(Backend::cuda, kernel, "fp32 tf32 bf16",
                                                   "cuBLAS");

}  // namespace
}  // namespace kiln::cuda
