// CPU reference batched GEMM: the reference GEMM (core/cpu/gemm.cpp: OpenBLAS or Eigen) on each
// matrix of the batch in turn. beta == 0 never reads out, as there.
#include "kiln/core/ops/batched_gemm.h"
#include "kiln/core/cpu/backend.h"
#include "kiln/core/cpu/gemm.h"

namespace kiln::cpu {

namespace {

void batched_gemm(const rec::BatchedGemm& o) {
  rec::Gemm one = o;  // the first product; the next ones' matrices follow packed
  for (Index i = 0; i < o.batch; ++i) {
    gemm(one);
    one.a += o.m * o.k;
    one.b += o.k * o.n;
    one.out += o.m * o.n;
  }
}

const RegisterKernel<op::BatchedGemm> kBatchedGemm(Backend::reference, on_record<batched_gemm>,
                                                   "fp32 bf16", reference_gemm_name());

}  // namespace

}  // namespace kiln::cpu
