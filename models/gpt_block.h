// One GPT block, nanoGPT's Block: x + attn(ln_1(x)), then h + mlp(ln_2(h)), mlp = dropout(
// c_proj(GELU-tanh(c_fc(h)))) with c_fc width -> 4 width. x: (B, T, width) -> the same.
// Parameters: ln_1.*, attn.c_attn.*, attn.c_proj.*, ln_2.*, mlp.c_fc.*, mlp.c_proj.*.
#pragma once

#include <memory>
#include <vector>

#include "kiln/core/random.h"
#include "kiln/layers/activations.h"
#include "kiln/layers/causal_self_attention.h"
#include "kiln/layers/dropout.h"
#include "kiln/layers/layer_norm.h"
#include "kiln/layers/linear.h"

namespace kiln {

// The block's feed-forward part: (B, T, width) -> (B, T, width).
class GptMlp : public Module {
 public:
  GptMlp(std::int64_t width, float dropout, Generator& gen, std::uint64_t dropout_seed);
  std::string describe() const override;
  Shape output_shape(const Shape& input) const override { return input; }
  Linear& c_fc() { return *c_fc_; }
  Linear& c_proj() { return *c_proj_; }
  const Linear& c_fc() const { return *c_fc_; }
  const Linear& c_proj() const { return *c_proj_; }
  const GELU& gelu() const { return *gelu_; }

 protected:
  Tensor forward_impl(const Tensor& x) override;
  Tensor backward_impl(const Tensor& dy) override;

 private:
  std::int64_t width_;
  std::shared_ptr<Linear> c_fc_, c_proj_;
  std::shared_ptr<GELU> gelu_;
  std::shared_ptr<Dropout> dropout_;
  Shape input_shape_;
};

class GptBlock : public Module {
 public:
  // The dropouts draw from dropout_seed .. dropout_seed + 2.
  GptBlock(std::int64_t width, std::int64_t heads, float dropout, Generator& gen,
           std::uint64_t dropout_seed);
  std::string describe() const override;
  Shape output_shape(const Shape& input) const override { return attn_->output_shape(input); }
  CausalSelfAttention& attn() { return *attn_; }
  GptMlp& mlp() { return *mlp_; }
  LayerNorm& ln_1() { return *ln_1_; }
  LayerNorm& ln_2() { return *ln_2_; }
  const LayerNorm& ln_1() const { return *ln_1_; }
  const LayerNorm& ln_2() const { return *ln_2_; }
  const CausalSelfAttention& attn() const { return *attn_; }
  const GptMlp& mlp() const { return *mlp_; }

 protected:
  Tensor forward_impl(const Tensor& x) override;
  Tensor backward_impl(const Tensor& dy) override;

 private:
  std::shared_ptr<LayerNorm> ln_1_, ln_2_;
  std::shared_ptr<CausalSelfAttention> attn_;
  std::shared_ptr<GptMlp> mlp_;
  Tensor h_, y_;  // the residual sums (their gradients are reuse_gradient's slots)
};

// Makes every block of `blocks`, a GPT's blocks run one after another, keep its backward's
// buffers in the first block's (Module::share_gradient_buffers), so that a GPT of any depth keeps
// one block's gradients. A block's backward reads the gradient it is given, the next block's dx
// and so the very buffer it writes its own dx into, before that write, its last step; every other
// buffer it writes belongs to a module that ran its backward in the block after it, whose result
// that block has used up.
void share_block_gradients(const std::vector<std::shared_ptr<GptBlock>>& blocks);

}  // namespace kiln
