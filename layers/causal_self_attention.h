// CausalSelfAttention(width, heads, dropout), nanoGPT's: x (B, T, width) -> c_attn, a Linear
// width -> 3 width, split into queries, keys and values of `heads` heads (head size width /
// heads); per head softmax(q kᵀ / sqrt(head size)) under a causal mask (position t attends to
// positions <= t), attention dropout, · v; the heads merged back and c_proj (width -> width),
// then residual dropout. Built on ops only (core/ops: permute, batched_gemm, causal_softmax).
#pragma once

#include <memory>

#include "kiln/core/random.h"
#include "kiln/layers/dropout.h"
#include "kiln/layers/linear.h"
#include "kiln/layers/module.h"

namespace kiln {

// Children c_attn, c_proj, attn_dropout, resid_dropout, so its parameters read "c_attn.weight",
// "c_attn.bias", "c_proj.weight", "c_proj.bias" as PyTorch's. Where runs_fused, no T x T matrix
// is kept (the fused causal_attention op); else every head's is.
class CausalSelfAttention : public Module {
 public:
  // The dropouts draw their masks from dropout_seed and dropout_seed + 1.
  CausalSelfAttention(std::int64_t width, std::int64_t heads, float dropout, Generator& gen,
                      std::uint64_t dropout_seed = 0);

  std::string describe() const override;
  Shape output_shape(const Shape& input) const override;  // (B, T, width) -> the same
  Linear& c_attn() { return *c_attn_; }
  Linear& c_proj() { return *c_proj_; }
  const Linear& c_attn() const { return *c_attn_; }
  const Linear& c_proj() const { return *c_proj_; }
  std::int64_t heads() const { return heads_; }
  // Whether a forward runs the fused causal_attention op, which keeps no T x T matrix, with no
  // attention dropout at work: on the CPU from 256 positions (below, the unfused products of
  // oneDNN's batched GEMM are faster and its T x T matrices small: docs/performance.md); on a
  // GPU under bf16 products with a head size cuDNN's fused attention takes (elsewhere the op runs
  // kiln's plain fp32 kernel there, slower than the unfused cuBLAS products).
  static bool runs_fused(Device device, std::int64_t time, std::int64_t head_size,
                         bool dropout_at_work);

 protected:
  Tensor forward_impl(const Tensor& x) override;
  Tensor backward_impl(const Tensor& dy) override;

 private:
  std::int64_t width_, heads_, head_size_;
  float dropout_;
  std::shared_ptr<Linear> c_attn_, c_proj_;
  std::shared_ptr<Dropout> attn_dropout_, resid_dropout_;
  std::int64_t batch_ = 0, time_ = 0;  // of the last forward
  Tensor heads_qkv_;  // (3, B, H, T, D): queries, keys, values, one contiguous block each
  // runs_fused: the fused op (core/ops/causal_attention.h) ran and kept only each row's
  // log-sum-exp; else the T x T softmax is kept.
  bool fused_ = false;
  Tensor lse_;        // (B H, T), the fused op's
  Tensor attention_;  // (B H, T, T): the softmax, before dropout
  Tensor dropped_;    // attn_dropout's output (attention_ itself in eval)
  Tensor heads_y_;    // (B H, T, D)
  Tensor merged_;     // (B, T, H, D)
  // backward's gradients of heads_y_, the softmax, heads_qkv_ and the QKV product: reuse_gradient's
  // slots.
};

}  // namespace kiln
