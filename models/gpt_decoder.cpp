// GptDecoder over the ops of the training path (linear_forward, layer_norm_forward, permute,
// batched_gemm, softmax, activation_forward, binary) with no embedding lookup: the token's row
// of wte and the position's row of wpe are views of the tables, summed. Each block attends with
// the query of the new position alone: no causal mask is needed, every cached position is past.
#include "kiln/models/gpt_decoder.h"

#include <cmath>

#include "kiln/core/ops.h"

namespace kiln {

namespace {

// (T, H, D) -> (H, T, D): each head's keys (or values) one contiguous (T, D) matrix.
const std::vector<int> kByHead = {1, 0, 2};

// A Linear's output for one position: y = x Wᵀ + b.
void linear(const Tensor& x, Linear& layer, Tensor& y) {
  linear_forward(x, layer.weight().value, layer.bias()->value, y);
}

}  // namespace

GptDecoder::GptDecoder(Gpt& model)
    : model_(model), config_(model.config()), head_size_(config_.width / config_.heads) {
  const Device device = model.wte().weight().value.device();
  const std::int64_t c = config_.width, t = config_.context, h = config_.heads;
  for (const std::shared_ptr<GptBlock>& block : model.blocks())
    blocks_.push_back(Block{block.get(), Tensor::empty({t, c}, DType::f32, device),
                            Tensor::empty({t, c}, DType::f32, device)});
  x_ = Tensor::empty({1, c}, DType::f32, device);
  h_ = Tensor::empty({1, c}, DType::f32, device);
  normed_ = Tensor::empty({1, c}, DType::f32, device);
  qkv_ = Tensor::empty({1, 3 * c}, DType::f32, device);
  merged_ = Tensor::empty({1, c}, DType::f32, device);
  projected_ = Tensor::empty({1, c}, DType::f32, device);
  hidden_ = Tensor::empty({1, 4 * c}, DType::f32, device);
  activated_ = Tensor::empty({1, 4 * c}, DType::f32, device);
  logits_ = Tensor::empty({1, config_.vocabulary}, DType::f32, device);
  mean_ = Tensor::empty({1}, DType::f32, device);
  invstd_ = Tensor::empty({1}, DType::f32, device);
  keys_heads_ = Tensor::empty({t * c}, DType::f32, device);
  values_heads_ = Tensor::empty({t * c}, DType::f32, device);
  scores_ = Tensor::empty({h * t}, DType::f32, device);
  probabilities_ = Tensor::empty({h * t}, DType::f32, device);
}

void GptDecoder::layer_norm(const Tensor& x, LayerNorm& norm) {
  layer_norm_forward(x, norm.weight().value, norm.bias().value, normed_, mean_, invstd_,
                     norm.eps());
}

// normed_ -> merged_ (1, width): the heads' outputs side by side, as c_proj takes them.
// Appends the position's key and value rows to the block's cache (position-major, as c_attn
// writes them), regroups the cache by head with one permute (the heads' prefixes must be
// contiguous for batched_gemm), and attends with the new position's query.
void GptDecoder::attend(Block& block) {
  const std::int64_t c = config_.width, h = config_.heads, d = head_size_;
  const std::int64_t t = length_ + 1;  // the cached positions and this one
  linear(normed_, block.layers->attn().c_attn(), qkv_);
  const Tensor parts = qkv_.view({3, c});  // query, key and value rows of this position
  Tensor key_row = block.keys.slice(length_, t), value_row = block.values.slice(length_, t);
  copy(parts.slice(1, 2).view({1, c}), key_row);
  copy(parts.slice(2, 3).view({1, c}), value_row);
  Tensor keys = keys_heads_.slice(0, t * c).view({h, t, d});
  Tensor values = values_heads_.slice(0, t * c).view({h, t, d});
  permute(block.keys.slice(0, t).view({t, h, d}), kByHead, keys);
  permute(block.values.slice(0, t).view({t, h, d}), kByHead, values);
  // (H, 1, D) queries: at one position the (1, H, D) row is already grouped by head.
  const Tensor query = parts.slice(0, 1).view({h, 1, d});
  Tensor scores = scores_.slice(0, h * t).view({h, 1, t});
  Tensor probabilities = probabilities_.slice(0, h * t).view({h, 1, t});
  batched_gemm(query, false, keys, true, scores, 1.0f / std::sqrt(static_cast<float>(d)));
  softmax(scores, probabilities);
  Tensor heads_out = merged_.view({h, 1, d});
  batched_gemm(probabilities, false, values, false, heads_out);
}

const Tensor& GptDecoder::step(std::int32_t token) {
  KILN_CHECK(token >= 0 && token < config_.vocabulary,
             "GptDecoder: token {} is not in the model's vocabulary [0, {})", token,
             config_.vocabulary);
  KILN_CHECK(length_ < config_.context,
             "GptDecoder: the cache holds the model's whole context of {} positions; reset it "
             "and step the last tokens again to go on (each then takes a new position)",
             config_.context);
  const Tensor& wte = model_.wte().weight().value;
  const Tensor& wpe = model_.wpe().weight().value;
  KILN_CHECK(wte.device() == x_.device(),
             "GptDecoder: the model moved to {} after the decoder was made on {}; make the "
             "decoder after moving the model",
             wte.device().str(), x_.device().str());
  binary(BinaryOp::add, wte.slice(token, token + 1), wpe.slice(length_, length_ + 1), x_);
  for (Block& block : blocks_) {
    GptBlock& layers = *block.layers;
    layer_norm(x_, layers.ln_1());
    attend(block);
    linear(merged_, layers.attn().c_proj(), projected_);
    binary(BinaryOp::add, x_, projected_, h_);
    layer_norm(h_, layers.ln_2());
    linear(normed_, layers.mlp().c_fc(), hidden_);
    activation_forward(layers.mlp().gelu().kind(), hidden_, activated_);
    linear(activated_, layers.mlp().c_proj(), projected_);
    binary(BinaryOp::add, h_, projected_, x_);
  }
  layer_norm(x_, model_.ln_f());
  linear_forward(normed_, wte, Tensor(), logits_);
  ++length_;
  return logits_;
}

}  // namespace kiln
