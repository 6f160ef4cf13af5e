// GEMM and Linear forward as oneDNN matmul primitives. A transposed operand is described by its
// strides, never copied; beta becomes a sum post-op (so beta == 0 never reads c), Linear's bias
// a bias argument. Linear's ReLU is not oneDNN's eltwise post-op: that one turns NaN into 0
// (tests/core/onednn_parity_test.cpp), which would hide a diverging layer, so kiln's own ReLU
// runs in place after the product, as on the reference path (NaN stays NaN).
#include <fmt/format.h>

#include "kiln/core/cpu/kernels.h"
#include "kiln/core/cpu/onednn/runtime.h"

namespace kiln::cpu::onednn {

void gemm(bool trans_a, bool trans_b, Index m, Index n, Index k, float alpha, const float* a,
          const float* b, float beta, float* c, bool bf16) {
  // alpha and beta are baked into the primitive: kiln calls GEMMs with a handful of them.
  const std::string key = fmt::format("gemm {}{} {}x{}x{} {:a} {:a} {}", trans_a, trans_b, m, n, k,
                                      alpha, beta, bf16);
  guarded("matmul", key, [&] {
    const Operand a_in = operand(a, m * k, bf16, 0), b_in = operand(b, k * n, bf16, 1);
    const dnnl::memory::desc a_md = matrix_desc(m, k, trans_a, a_in.type);
    const dnnl::memory::desc b_md = matrix_desc(k, n, trans_b, b_in.type);
    const dnnl::memory::desc c_md = matrix_desc(m, n, false, dt::f32);
    const Cached& p = cached(key, [&] {
      dnnl::primitive_attr attr = scratchpad_attr();
      if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
      if (beta != 0.0f) {
        dnnl::post_ops ops;
        ops.append_sum(beta);
        attr.set_post_ops(ops);
      }
      const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), attr, context().engine);
      return Cached{dnnl::matmul(pd), pd.scratchpad_desc().get_size()};
    });
    const dnnl::engine& e = context().engine;
    execute(p, {{DNNL_ARG_SRC, dnnl::memory(a_md, e, a_in.data)},
                {DNNL_ARG_WEIGHTS, dnnl::memory(b_md, e, b_in.data)},
                {DNNL_ARG_DST, dnnl::memory(c_md, e, c)}});
  });
}

void linear_forward(Index n, Index in, Index out, const float* x, const float* w, const float* bias,
                    bool relu, float* y, bool bf16) {
  const std::string key =
      fmt::format("linear {}x{}->{} bias {} {}", n, in, out, bias != nullptr, bf16);
  guarded("matmul", key, [&] {
    const Operand x_in = operand(x, n * in, bf16, 0), w_in = operand(w, out * in, bf16, 1);
    const dnnl::memory::desc x_md = matrix_desc(n, in, false, x_in.type);
    const dnnl::memory::desc w_md = matrix_desc(in, out, true, w_in.type);  // wᵀ
    const dnnl::memory::desc b_md = matrix_desc(1, out, false, dt::f32);
    const dnnl::memory::desc y_md = matrix_desc(n, out, false, dt::f32);
    const Cached& p = cached(key, [&] {
      const dnnl::primitive_attr attr = scratchpad_attr();
      const dnnl::matmul::primitive_desc pd =
          dnnl::matmul::primitive_desc(bias != nullptr ? dnnl::matmul::desc(x_md, w_md, b_md, y_md)
                                                        : dnnl::matmul::desc(x_md, w_md, y_md),
                                       attr, context().engine);
      return Cached{dnnl::matmul(pd), pd.scratchpad_desc().get_size()};
    });
    const dnnl::engine& e = context().engine;
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_SRC, dnnl::memory(x_md, e, x_in.data)},
        {DNNL_ARG_WEIGHTS, dnnl::memory(w_md, e, w_in.data)},
        {DNNL_ARG_DST, dnnl::memory(y_md, e, y)}};
    if (bias != nullptr) args.emplace(DNNL_ARG_BIAS, dnnl::memory(b_md, e, const_cast<float*>(bias)));
    execute(p, std::move(args));
  });
  if (relu) cpu::activation_forward(Activation::relu, n * out, y, y, 0.0f);
}

}  // namespace kiln::cpu::onednn
