// GEMM and Linear's forward and backward as oneDNN matmul primitives. A transposed operand is
// described by its strides, never copied; beta becomes a sum post-op (so beta == 0 never reads
// c), Linear's bias a bias argument. Linear's ReLU is not oneDNN's eltwise post-op: that one
// turns NaN into 0 (tests/ops/cases/linear_cases.cpp has the NaN case), which would hide a
// diverging layer, so kiln's own ReLU runs in place after the product, as on the reference path.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstdint>

#include "kiln/core/cpu/activation.h"
#include "kiln/core/cpu/bf16.h"
#include "kiln/core/cpu/bias.h"
#include "kiln/core/cpu/onednn/runtime.h"
#include "kiln/core/cpu_compute.h"

namespace kiln::cpu::onednn {

namespace {

dnnl::matmul::primitive_desc matmul_pd(bool trans_a, bool trans_b, Index m, Index n, Index k,
                                       float alpha, dt a_type, dt b_type, bool bias, float beta) {
  dnnl::primitive_attr attr = scratchpad_attr();
  if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
  if (beta != 0.0f) {
    dnnl::post_ops ops;
    ops.append_sum(beta);
    attr.set_post_ops(ops);
  }
  const dnnl::memory::desc a_md = matrix_desc(m, k, trans_a, a_type);
  const dnnl::memory::desc b_md = matrix_desc(k, n, trans_b, b_type);
  const dnnl::memory::desc c_md = matrix_desc(m, n, false, dt::f32);
  const dnnl::matmul::desc d =
      bias ? dnnl::matmul::desc(a_md, b_md, matrix_desc(1, n, false, dt::f32), c_md)
           : dnnl::matmul::desc(a_md, b_md, c_md);
  return dnnl::matmul::primitive_desc(d, attr, context().engine);
}

// c (m, n) = alpha * op(a) @ op(b) (+ bias row) + beta * c, a and b already in the type the
// primitive takes. One cached primitive per shape, layout, type, alpha and beta (kiln calls
// GEMMs with a handful of alphas and betas).
void matmul(bool trans_a, bool trans_b, Index m, Index n, Index k, float alpha, Operand a,
            Operand b, const float* bias, float beta, float* c) {
  const std::string key = fmt::format("matmul {}{} {}x{}x{} {:a} {:a} {}{} {}", trans_a, trans_b, m,
                                      n, k, alpha, beta, static_cast<int>(a.type),
                                      static_cast<int>(b.type), bias != nullptr ? "bias" : "");
  guarded("matmul", key, [&] {
    const dnnl::memory::desc a_md = matrix_desc(m, k, trans_a, a.type);
    const dnnl::memory::desc b_md = matrix_desc(k, n, trans_b, b.type);
    const dnnl::memory::desc bias_md = matrix_desc(1, n, false, dt::f32);
    const dnnl::memory::desc c_md = matrix_desc(m, n, false, dt::f32);
    const Cached& p = cached(key, [&] {
      const auto pd =
          matmul_pd(trans_a, trans_b, m, n, k, alpha, a.type, b.type, bias != nullptr, beta);
      return Cached{dnnl::matmul(pd), pd.scratchpad_desc().get_size()};
    });
    const dnnl::engine& e = context().engine;
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, dnnl::memory(a_md, e, a.data)},
                                               {DNNL_ARG_WEIGHTS, dnnl::memory(b_md, e, b.data)},
                                               {DNNL_ARG_DST, dnnl::memory(c_md, e, c)}};
    if (bias != nullptr)
      args.emplace(DNNL_ARG_BIAS, dnnl::memory(bias_md, e, const_cast<float*>(bias)));
    execute(p, std::move(args));
  });
}

// The weight as the product takes it: its bf16 copy where one is kept and the CPU multiplies
// bf16, else operand() (slot 1).
Operand weight_operand(const float* w, const std::uint16_t* w_bf16, Index count, bool bf16) {
  if (bf16 && w_bf16 != nullptr && cpu_has_bf16_instructions())
    return bf16_operand(w_bf16, count, 1);
  return operand(w, count, bf16, 1);
}

constexpr Index kColumnBlock = 64;  // as core/cpu/bias.cpp: a block's double sums stay in L1

// dpre[j] = dy[j] * [y[j] > 0] (y null: dy[j]) for one row's block of `width` columns, as
// float32 or bf16 bits, and sums[j] += the fp32 value. Two loops, so neither tests y per element
// and both vectorise.
template <typename Out>
inline void mask_row(Index width, const float* __restrict g, const float* __restrict y,
                     Out* __restrict d, double* __restrict sums) {
  if (y != nullptr) {
    for (Index j = 0; j < width; ++j) {
      // g where y > 0, else +0, as a bit mask: GCC keeps a select here as a branch (scalar).
      const std::uint32_t keep = 0u - static_cast<std::uint32_t>(y[j] > 0.0f);
      const float v = std::bit_cast<float>(std::bit_cast<std::uint32_t>(g[j]) & keep);
      if constexpr (sizeof(Out) == 2)
        d[j] = bf16_bits(v);
      else
        d[j] = v;
      sums[j] += static_cast<double>(v);
    }
  } else {
    for (Index j = 0; j < width; ++j) {
      const float v = g[j];
      if constexpr (sizeof(Out) == 2)
        d[j] = bf16_bits(v);
      else
        d[j] = v;
      sums[j] += static_cast<double>(v);
    }
  }
}

// One pass over dy (rows, cols): dpre = dy * [y > 0] (y null: dy), written as float32 or bf16
// bits; dbias (or null) += column sums of the fp32 dpre, in double, block by block of columns so
// that no two threads share a sum and the order never depends on the thread count.
template <typename Out>
void relu_mask_and_bias_sums(Index rows, Index cols, const float* dy, const float* y, Out* dpre,
                             float* dbias) {
#pragma omp parallel for if (rows * cols > 32768) schedule(static)
  for (Index c0 = 0; c0 < cols; c0 += kColumnBlock) {
    const Index width = std::min(kColumnBlock, cols - c0);
    double sums[kColumnBlock] = {};
    for (Index r = 0; r < rows; ++r)
      mask_row(width, dy + r * cols + c0, y != nullptr ? y + r * cols + c0 : nullptr,
               dpre + r * cols + c0, sums);
    if (dbias != nullptr)
      for (Index j = 0; j < width; ++j) dbias[c0 + j] = static_cast<float>(dbias[c0 + j] + sums[j]);
  }
}

}  // namespace

std::size_t matmul_scratchpad_bytes(bool trans_a, bool trans_b, Index m, Index n, Index k,
                                    float alpha, bool bias, float beta, bool bf16) {
  const dt type = product_type(bf16);
  std::size_t bytes = 0;
  guarded("matmul", fmt::format("{}x{}x{}", m, n, k), [&] {
    bytes = matmul_pd(trans_a, trans_b, m, n, k, alpha, type, type, bias, beta)
                .scratchpad_desc()
                .get_size();
  });
  return bytes;
}

void gemm(const rec::Gemm& o, bool bf16) {
  matmul(o.trans_a, o.trans_b, o.m, o.n, o.k, o.alpha, operand(o.a, o.m * o.k, bf16, 0),
         operand(o.b, o.k * o.n, bf16, 1), nullptr, o.beta, o.out);
}

void linear_forward(const rec::LinearForward& o, bool bf16) {
  const Index n = o.n, in = o.in, out = o.out;
  const float *x = o.x, *w = o.w, *bias = o.bias;
  const std::uint16_t* w_bf16 = o.w_bf16;
  float* y = o.y;
  matmul(false, true, n, out, in, 1.0f, operand(x, n * in, bf16, 0),
         weight_operand(w, w_bf16, out * in, bf16), bias, 0.0f, y);
  if (o.relu) cpu::activation_forward({Activation::relu, n * out, y, y, 0.0f});
}

void linear_backward(const rec::LinearBackward& o, bool bf16) {
  const Index n = o.n, in = o.in, out = o.out;
  const float *dy = o.dy, *x = o.x, *w = o.w, *y_relu = o.y_relu;
  const std::uint16_t* w_bf16 = o.w_bf16;
  float *dw = o.dw, *dbias = o.dbias, *dx = o.dx, *dpre = o.dpre;
  Operand g{const_cast<float*>(dy), dt::f32};
  if (bf16 && cpu_has_bf16_instructions()) {  // dpre straight into bf16: both products take it so
    auto* bits = static_cast<std::uint16_t*>(staging(static_cast<std::size_t>(n * out) * 2, 2));
    relu_mask_and_bias_sums(n, out, dy, y_relu, bits, dbias);
    g = bf16_operand(bits, n * out, 2);
  } else {
    if (y_relu != nullptr) {
      relu_mask_and_bias_sums(n, out, dy, y_relu, dpre, dbias);
      g.data = dpre;
    } else if (dbias != nullptr) {
      cpu::bias_grad({n, out, dy, dbias});
    }
    if (bf16) g = operand(static_cast<const float*>(g.data), n * out, true, 2);  // rounded floats
  }
  // dW += dpreᵀ @ x: (out, N) @ (N, in); dx = dpre @ W: (N, out) @ (out, in).
  matmul(true, false, out, in, n, 1.0f, g, operand(x, n * in, bf16, 0), nullptr, 1.0f, dw);
  if (dx != nullptr)
    matmul(false, false, n, in, out, 1.0f, g, weight_operand(w, w_bf16, out * in, bf16), nullptr,
           0.0f, dx);
}

}  // namespace kiln::cpu::onednn
