// CausalSelfAttention over the permute, batched_gemm and causal_softmax ops. With S = q kᵀ and
// P = causal_softmax(S, scale): y = dropout(P) v; backward dv = dropout(P)ᵀ dy, dP = dy vᵀ (then
// through the dropout), dS = causal_softmax_backward(P, dP, scale), dq = dS k, dk = dSᵀ q. Where
// runs_fused says, the fused causal_attention op instead, which keeps no P.
#include "kiln/layers/causal_self_attention.h"

#include <cmath>

#include "kiln/core/ops.h"
#include "kiln/core/precision.h"

namespace kiln {

namespace {
// (B, T, 3, H, D) -> (3, B, H, T, D): q, k and v each one contiguous batch of (T, D) matrices.
const std::vector<int> kSplitHeads = {2, 0, 3, 1, 4};
// (B, H, T, D) <-> (B, T, H, D): the heads side by side again (its own inverse).
const std::vector<int> kSwapHeadsAndTime = {0, 2, 1, 3};
}  // namespace

CausalSelfAttention::CausalSelfAttention(std::int64_t width, std::int64_t heads, float dropout,
                                         Generator& gen, std::uint64_t dropout_seed)
    : width_(width), heads_(heads), head_size_(heads > 0 ? width / heads : 0), dropout_(dropout) {
  KILN_CHECK(width_ > 0 && heads_ > 0 && width_ % heads_ == 0,
             "CausalSelfAttention needs a width that its heads divide, found width {} and {} heads",
             width_, heads_);
  c_attn_ = std::make_shared<Linear>(width_, 3 * width_, gen);
  c_proj_ = std::make_shared<Linear>(width_, width_, gen);
  attn_dropout_ = std::make_shared<Dropout>(dropout_, dropout_seed);
  resid_dropout_ = std::make_shared<Dropout>(dropout_, dropout_seed + 1);
  register_module("c_attn", c_attn_, ChildInput::parent_input);
  register_module("c_proj", c_proj_);
  register_module("attn_dropout", attn_dropout_);
  register_module("resid_dropout", resid_dropout_);
}

std::string CausalSelfAttention::describe() const {
  return fmt::format("CausalSelfAttention(width {}, {} heads, dropout {})", width_, heads_,
                     dropout_);
}

Shape CausalSelfAttention::output_shape(const Shape& input) const {
  KILN_CHECK(input.rank() == 3 && input[2] == width_,
             "{}: expected an input of shape (batch, time, {}), found {}", describe(), width_,
             input.str());
  return input;
}

bool CausalSelfAttention::runs_fused(Device device, std::int64_t time, std::int64_t head_size,
                                     bool dropout_at_work) {
  constexpr std::int64_t kFusedFrom = 256;
  if (dropout_at_work) return false;  // the fused op drops none of its probabilities
  if (device.is_cuda()) return bf16_products() && cudnn_attention_takes_head_size(head_size);
  return time >= kFusedFrom;
}

Tensor CausalSelfAttention::forward_impl(const Tensor& x) {
  const std::int64_t b = x.size(0), t = x.size(1), h = heads_, d = head_size_;
  batch_ = b, time_ = t;
  const Tensor& qkv = c_attn_->forward(x.view({b * t, width_}));
  Tensor& heads = reuse(heads_qkv_, {3, b, h, t, d});
  permute(qkv.view({b, t, 3, h, d}), kSplitHeads, heads);
  const Tensor q = heads.slice(0, 1).view({b * h, t, d}), k = heads.slice(1, 2).view({b * h, t, d}),
               v = heads.slice(2, 3).view({b * h, t, d});
  Tensor& y = reuse(heads_y_, {b * h, t, d});
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  fused_ = runs_fused(x.device(), t, d, dropout_ > 0.0f && is_training());
  if (fused_) {
    causal_attention_forward(q, k, v, y, reuse(lse_, {b * h, t}), scale);
    // As attn_dropout's forward at p = 0 would: its generator's recorded state stays the same.
    if (is_training())
      attn_dropout_->generator().advance(static_cast<std::uint64_t>(b * h * t * t));
  } else {
    Tensor& attention = reuse(attention_, {b * h, t, t});
    batched_gemm(q, false, k, true, attention);
    causal_softmax_forward(attention, attention, scale);
    dropped_ = attn_dropout_->forward(attention);
    batched_gemm(dropped_, false, v, false, y);
  }
  Tensor& merged = reuse(merged_, {b, t, h, d});
  permute(y.view({b, h, t, d}), kSwapHeadsAndTime, merged);
  const Tensor& projected = c_proj_->forward(merged.view({b * t, width_}));
  return resid_dropout_->forward(projected).view({b, t, width_});
}

Tensor CausalSelfAttention::backward_impl(const Tensor& dy) {
  const std::int64_t b = batch_, t = time_, h = heads_, d = head_size_;
  const Tensor d_projected = resid_dropout_->backward(dy.view({b * t, width_}));
  const Tensor d_merged = c_proj_->backward(d_projected);
  enum Slot : std::size_t { kDy, kDHeads, kDAttention, kDQkv };  // reuse_gradient's
  Tensor& d_y = reuse_gradient(kDy, {b, h, t, d});
  permute(d_merged.view({b, t, h, d}), kSwapHeadsAndTime, d_y);
  const Tensor d_y3 = d_y.view({b * h, t, d});
  const Tensor q = heads_qkv_.slice(0, 1).view({b * h, t, d}),
               k = heads_qkv_.slice(1, 2).view({b * h, t, d}),
               v = heads_qkv_.slice(2, 3).view({b * h, t, d});
  Tensor& d_heads = reuse_gradient(kDHeads, {3, b, h, t, d});
  Tensor dq = d_heads.slice(0, 1).view({b * h, t, d}), dk = d_heads.slice(1, 2).view({b * h, t, d}),
         dv = d_heads.slice(2, 3).view({b * h, t, d});
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  if (fused_) {
    causal_attention_backward(q, k, v, heads_y_, lse_, d_y3, dq, dk, dv, scale);
  } else {
    batched_gemm(dropped_, true, d_y3, false, dv);
    Tensor& d_dropped = reuse_gradient(kDAttention, {b * h, t, t});
    batched_gemm(d_y3, false, v, true, d_dropped);
    Tensor d_attention = attn_dropout_->backward(d_dropped);
    // dS over dP's memory: each row is read before it is written.
    causal_softmax_backward(attention_, d_attention, d_attention, scale);
    batched_gemm(d_attention, false, k, false, dq);
    batched_gemm(d_attention, true, q, false, dk);
  }
  Tensor& d_qkv = reuse_gradient(kDQkv, {b, t, 3, h, d});
  permute(d_heads, inverse_permutation(kSplitHeads), d_qkv);
  const Tensor dx = c_attn_->backward(d_qkv.view({b * t, 3 * width_}));
  return dx.defined() ? dx.view({b, t, width_}) : Tensor();
}

}  // namespace kiln
