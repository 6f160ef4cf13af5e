// CPU reference batched GEMM: the reference GEMM (core/cpu/gemm.cpp: OpenBLAS or Eigen) on each
// matrix of the batch in turn. beta == 0 never reads out, as there.
#include "kiln/core/ops/batched_gemm.h"
#include "kiln/core/cpu/backend.h"
#include "kiln/core/cpu/gemm.h"

namespace kiln::cpu {

namespace {

void batched_gemm(const rec::BatchedGemm& o) {
  const float* a = o.a;
  const float* b = o.b;
  float* c = o.out;
  for (Index i = 0; i < o.batch; ++i)
    gemm({o.trans_a, o.trans_b, o.m, o.n, o.k, o.alpha, a + i * o.m * o.k, b + i * o.k * o.n,
          o.beta, c + i * o.m * o.n});
}

const RegisterKernel<op::BatchedGemm> kBatchedGemm(Backend::reference, on_record<batched_gemm>,
                                                   "fp32 bf16", reference_gemm_name());

}  // namespace

}  // namespace kiln::cpu
