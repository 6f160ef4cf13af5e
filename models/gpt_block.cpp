// GptBlock and GptMlp: children and residual sums; backward adds each branch's input gradient
// to the gradient that skips it.
#include "kiln/models/gpt_block.h"

#include "kiln/core/ops.h"

namespace kiln {

GptMlp::GptMlp(std::int64_t width, float dropout, Generator& gen, std::uint64_t dropout_seed)
    : width_(width) {
  c_fc_ = std::make_shared<Linear>(width, 4 * width, gen);
  gelu_ = std::make_shared<GELU>(GeluApproximate::tanh);
  c_proj_ = std::make_shared<Linear>(4 * width, width, gen);
  dropout_ = std::make_shared<Dropout>(dropout, dropout_seed);
  register_module("c_fc", c_fc_, ChildInput::parent_input);
  register_module("gelu", gelu_);
  register_module("c_proj", c_proj_);
  register_module("dropout", dropout_);
}

std::string GptMlp::describe() const { return fmt::format("GptMlp({} -> {})", width_, 4 * width_); }

Tensor GptMlp::forward_impl(const Tensor& x) {
  input_shape_ = x.shape();
  const std::int64_t rows = x.numel() / width_;
  const Tensor& hidden = c_fc_->forward(x.view({rows, width_}));
  const Tensor& out = c_proj_->forward(gelu_->forward(hidden));
  return dropout_->forward(out).view(x.shape());
}

Tensor GptMlp::backward_impl(const Tensor& dy) {
  const std::int64_t rows = dy.numel() / width_;
  const Tensor d_out = dropout_->backward(dy.view({rows, width_}));
  const Tensor d_hidden = gelu_->backward(c_proj_->backward(d_out));
  const Tensor dx = c_fc_->backward(d_hidden);
  return dx.defined() ? dx.view(input_shape_) : Tensor();
}

GptBlock::GptBlock(std::int64_t width, std::int64_t heads, float dropout, Generator& gen,
                   std::uint64_t dropout_seed) {
  ln_1_ = std::make_shared<LayerNorm>(width);
  attn_ = std::make_shared<CausalSelfAttention>(width, heads, dropout, gen, dropout_seed);
  ln_2_ = std::make_shared<LayerNorm>(width);
  mlp_ = std::make_shared<GptMlp>(width, dropout, gen, dropout_seed + 2);
  register_module("ln_1", ln_1_, ChildInput::parent_input);
  register_module("attn", attn_);
  register_module("ln_2", ln_2_);
  register_module("mlp", mlp_);
}

std::string GptBlock::describe() const { return fmt::format("GptBlock({})", attn_->describe()); }

Tensor GptBlock::forward_impl(const Tensor& x) {
  Tensor& h = reuse(h_, x.shape());
  binary(BinaryOp::add, x, attn_->forward(ln_1_->forward(x)), h);
  Tensor& y = reuse(y_, x.shape());
  binary(BinaryOp::add, h, mlp_->forward(ln_2_->forward(h)), y);
  return y;
}

Tensor GptBlock::backward_impl(const Tensor& dy) {
  enum Slot : std::size_t { kDh, kDx };  // reuse_gradient's
  Tensor& dh = reuse_gradient(kDh, dy.shape());
  binary(BinaryOp::add, dy, ln_2_->backward(mlp_->backward(dy)), dh);
  const Tensor d_branch = ln_1_->backward(attn_->backward(dh));
  if (!d_branch.defined()) return input_grad_wanted() ? dh : Tensor();
  // The last step, and the first to write where dy may lie (share_block_gradients).
  Tensor& dx = reuse_gradient(kDx, dy.shape());
  binary(BinaryOp::add, dh, d_branch, dx);
  return dx;
}

void share_block_gradients(const std::vector<std::shared_ptr<GptBlock>>& blocks) {
  for (std::size_t i = 1; i < blocks.size(); ++i) blocks[i]->share_gradient_buffers(*blocks[0]);
}

}  // namespace kiln
