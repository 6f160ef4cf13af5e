// Registers oneDNN's GEMM (matmul.cpp) for the gemm op. It takes every product with something
// to multiply; the empty ones (and alpha == 0) take the reference kernel, which only scales c.
#include "kiln/core/ops/gemm.h"
#include "kiln/core/cpu/onednn/onednn.h"
#include "kiln/core/op_table.h"
#include "kiln/core/precision.h"

namespace kiln::cpu::onednn {
namespace {

bool supports(const op::Gemm& o) {
  const rec::Gemm& r = o.record;
  return r.m > 0 && r.n > 0 && r.k > 0 && r.alpha != 0.0f;
}

// At the process's matmul precision.
void gemm_body(const rec::Gemm& o) { gemm(o, bf16_products()); }

const RegisterKernel<op::Gemm> kGemm(Backend::onednn, on_record<gemm_body>, "fp32 bf16", "oneDNN",
                                     supports);

}  // namespace
}  // namespace kiln::cpu::onednn
