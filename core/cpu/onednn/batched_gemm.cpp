// batched_gemm as one oneDNN matmul primitive over 3-D memory: the batch is the leading
// dimension, a transposed operand is described by its strides (never copied), alpha an output
// scale and beta a sum post-op (beta == 0 never reads out). One cached primitive per shape,
// layout, type, alpha and beta. Empty products (and alpha == 0) take the reference kernel.
#include <fmt/format.h>

#include "kiln/core/cpu/onednn/runtime.h"
#include "kiln/core/op_table.h"
#include "kiln/core/ops/batched_gemm.h"
#include "kiln/core/precision.h"

namespace kiln::cpu::onednn {
namespace {

// A batch of row-major (rows, cols) matrices, or of their transposes as stored (cols, rows).
dnnl::memory::desc batch_desc(Index batch, Index rows, Index cols, bool transposed, dt type) {
  const dnnl::memory::dims strides = transposed ? dnnl::memory::dims{rows * cols, 1, rows}
                                                : dnnl::memory::dims{rows * cols, cols, 1};
  return dnnl::memory::desc({batch, rows, cols}, type, strides);
}

dnnl::matmul::primitive_desc batched_pd(bool trans_a, bool trans_b, Index batch, Index m, Index n,
                                        Index k, float alpha, float beta, dt a_type, dt b_type) {
  dnnl::primitive_attr attr = scratchpad_attr();
  if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
  if (beta != 0.0f) {
    dnnl::post_ops ops;
    ops.append_sum(beta);
    attr.set_post_ops(ops);
  }
  const dnnl::matmul::desc d(batch_desc(batch, m, k, trans_a, a_type),
                             batch_desc(batch, k, n, trans_b, b_type),
                             batch_desc(batch, m, n, false, dt::f32));
  return dnnl::matmul::primitive_desc(d, attr, context().engine);
}

bool supports(const op::BatchedGemm& o) {
  const rec::BatchedGemm& r = o.record;
  return r.batch > 0 && r.m > 0 && r.n > 0 && r.k > 0 && r.alpha != 0.0f;
}

void batched_gemm(const rec::BatchedGemm& o) {
  const bool bf16 = bf16_products();
  const Operand a = operand(o.a, o.batch * o.m * o.k, bf16, 0);
  const Operand b = operand(o.b, o.batch * o.k * o.n, bf16, 1);
  const std::string key = fmt::format("batched_matmul {}{} {}x{}x{}x{} {:a} {:a} {}{}", o.trans_a,
                                      o.trans_b, o.batch, o.m, o.n, o.k, o.alpha, o.beta,
                                      static_cast<int>(a.type), static_cast<int>(b.type));
  guarded("batched_matmul", key, [&] {
    const dnnl::memory::desc a_md = batch_desc(o.batch, o.m, o.k, o.trans_a, a.type);
    const dnnl::memory::desc b_md = batch_desc(o.batch, o.k, o.n, o.trans_b, b.type);
    const dnnl::memory::desc c_md = batch_desc(o.batch, o.m, o.n, false, dt::f32);
    const Cached& p = cached(key, [&] {
      const auto pd =
          batched_pd(o.trans_a, o.trans_b, o.batch, o.m, o.n, o.k, o.alpha, o.beta, a.type, b.type);
      return Cached{dnnl::matmul(pd), pd.scratchpad_desc().get_size()};
    });
    const dnnl::engine& e = context().engine;
    execute(p, {{DNNL_ARG_SRC, dnnl::memory(a_md, e, a.data)},
                {DNNL_ARG_WEIGHTS, dnnl::memory(b_md, e, b.data)},
                {DNNL_ARG_DST, dnnl::memory(c_md, e, o.out)}});
  });
}

const RegisterKernel<op::BatchedGemm> kBatchedGemm(Backend::onednn, on_record<batched_gemm>,
                                                   "fp32 bf16", "oneDNN", supports);

}  // namespace

std::size_t batched_matmul_scratchpad_bytes(bool trans_a, bool trans_b, Index batch, Index m,
                                            Index n, Index k, bool bf16) {
  if (batch <= 0 || m <= 0 || n <= 0 || k <= 0) return 0;  // the reference kernel takes these
  const dt type = product_type(bf16);
  std::size_t bytes = 0;
  guarded("batched_matmul", fmt::format("{}x{}x{}x{}", batch, m, n, k), [&] {
    bytes = batched_pd(trans_a, trans_b, batch, m, n, k, 1.0f, 0.0f, type, type)
                .scratchpad_desc()
                .get_size();
  });
  return bytes;
}
}  // namespace kiln::cpu::onednn
