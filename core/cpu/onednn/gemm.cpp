// Registers oneDNN's GEMM (matmul.cpp) for the gemm op. It takes every product with something
// to multiply; the empty ones (and alpha == 0) take the reference kernel, which only scales c.
#include "kiln/core/ops/gemm.h"
#include "kiln/core/cpu/onednn/onednn.h"
#include "kiln/core/op_table.h"
#include "kiln/core/precision.h"

namespace kiln::cpu::onednn {
namespace {

bool supports(const op::Gemm& o) { return o.m > 0 && o.n > 0 && o.k > 0 && o.alpha != 0.0f; }

void gemm_kernel(op::Gemm& o) {
  gemm(o.trans_a, o.trans_b, o.m, o.n, o.k, o.alpha, o.a.data<float>(), o.b.data<float>(), o.beta,
       o.out.data<float>(), bf16_products());
}

const RegisterKernel<op::Gemm> kGemm(Backend::onednn, gemm_kernel, "fp32 bf16", "oneDNN", supports);

}  // namespace
}  // namespace kiln::cpu::onednn
