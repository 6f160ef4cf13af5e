// causal_attention: scaled dot-product attention under the causal mask in one op, which keeps
// no T x T matrix: the backward recomputes the scores from q, k and each row's log-sum-exp
// (checks in core/ops/causal_attention.cpp; the CPU kernel in core/cpu/causal_attention.cpp).
#pragma once

#include "kiln/core/ops/causal_attention_record.h"
#include "kiln/core/tensor.h"

namespace kiln {

// q, k, v, y: (N, T, D) (N heads of T positions), lse: (N, T) ->
// y[n, i] = sum over j <= i of softmax_j(scale * q[n, i] . k[n, j]) v[n, j] ("="), and
// lse[n, i] = log sum over j <= i of exp(scale * q[n, i] . k[n, j]) ("="), which backward reads.
// The same as causal_softmax_forward of batched_gemm(q, kᵀ) times v, to float rounding.
void causal_attention_forward(const Tensor& q, const Tensor& k, const Tensor& v, Tensor& y,
                              Tensor& lse, float scale);
// q, k, v, y, lse from the forward, dy: y's shape -> dq, dk, dv: the gradients of sum(y * dy)
// ("=" each). None of the outputs may alias an input.
void causal_attention_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& y,
                               const Tensor& lse, const Tensor& dy, Tensor& dq, Tensor& dk,
                               Tensor& dv, float scale);

// Whether cuDNN's fused attention takes heads of `head_size` features on every GPU it runs on
// (Ampere and later): a multiple of 8 up to 128. Under bf16 products a GPU runs causal_attention
// there (core/cuda/cudnn_attention.h); elsewhere, and for other sizes, on kiln's fp32 kernel.
bool cudnn_attention_takes_head_size(std::int64_t head_size);

namespace op {

struct CausalAttentionForward {
  static constexpr const char* kName = "causal_attention_forward";
  const Tensor& q;
  const Tensor& k;
  const Tensor& v;
  Tensor& y;
  Tensor& lse;
  float scale;
  rec::CausalAttentionForward record{};
  void check();
  Device device() const { return q.device(); }
};

struct CausalAttentionBackward {
  static constexpr const char* kName = "causal_attention_backward";
  const Tensor& q;
  const Tensor& k;
  const Tensor& v;
  const Tensor& y;
  const Tensor& lse;
  const Tensor& dy;
  Tensor& dq;
  Tensor& dk;
  Tensor& dv;
  float scale;
  rec::CausalAttentionBackward record{};
  void check();
  Device device() const { return q.device(); }
};

}  // namespace op
}  // namespace kiln
