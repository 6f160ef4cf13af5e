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

bool supports(const op::BatchedGemm& o) {
  return o.batch > 0 && o.m > 0 && o.n > 0 && o.k > 0 && o.alpha != 0.0f;
}

void kernel(op::BatchedGemm& o) {
  const bool bf16 = bf16_products();
  const Operand a = operand(o.a.data<float>(), o.a.numel(), bf16, 0);
  const Operand b = operand(o.b.data<float>(), o.b.numel(), bf16, 1);
  const std::string key =
      fmt::format("batched_matmul {}{} {}x{}x{}x{} {:a} {:a} {}{}", o.trans_a, o.trans_b, o.batch,
                  o.m, o.n, o.k, o.alpha, o.beta, static_cast<int>(a.type), static_cast<int>(b.type));
  guarded("batched_matmul", key, [&] {
    const dnnl::memory::desc a_md = batch_desc(o.batch, o.m, o.k, o.trans_a, a.type);
    const dnnl::memory::desc b_md = batch_desc(o.batch, o.k, o.n, o.trans_b, b.type);
    const dnnl::memory::desc c_md = batch_desc(o.batch, o.m, o.n, false, dt::f32);
    const Cached& p = cached(key, [&] {
      dnnl::primitive_attr attr = scratchpad_attr();
      if (o.alpha != 1.0f) attr.set_output_scales(0, {o.alpha});
      if (o.beta != 0.0f) {
        dnnl::post_ops ops;
        ops.append_sum(o.beta);
        attr.set_post_ops(ops);
      }
      const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), attr,
                                            context().engine);
      return Cached{dnnl::matmul(pd), pd.scratchpad_desc().get_size()};
    });
    const dnnl::engine& e = context().engine;
    execute(p, {{DNNL_ARG_SRC, dnnl::memory(a_md, e, a.data)},
                {DNNL_ARG_WEIGHTS, dnnl::memory(b_md, e, b.data)},
                {DNNL_ARG_DST, dnnl::memory(c_md, e, o.out.data<float>())}});
  });
}

const RegisterKernel<op::BatchedGemm> kBatchedGemm(Backend::onednn, kernel, "fp32 bf16", "oneDNN",
                                                   supports);

}  // namespace
}  // namespace kiln::cpu::onednn
