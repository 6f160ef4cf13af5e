// Registers the CUDA GEMM (core/cuda/gemm.cu, cuBLAS at the process's matmul precision).
#include "kiln/core/cuda/gemm.h"

#include "kiln/core/dispatch.h"
#include "kiln/core/op_table.h"
#include "kiln/core/ops/gemm.h"

namespace kiln::cuda {
namespace {

void gemm_kernel(op::Gemm& o) {
  gemm(o.trans_a, o.trans_b, o.m, o.n, o.k, o.alpha, o.a.data<float>(), o.b.data<float>(), o.beta,
       o.out.data<float>(), detail::prepare_cuda(o.a.device()));
}

const RegisterKernel<op::Gemm> kGemm(Backend::cuda, gemm_kernel, "fp32 tf32 bf16", "cuBLAS");

}  // namespace
}  // namespace kiln::cuda
