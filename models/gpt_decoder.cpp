// GptDecoder over the ops of the training path (linear_forward, layer_norm_forward, permute,
// batched_gemm, softmax, causal_softmax, activation_forward, binary, embedding). A step attends
// with the new position's query alone, so it needs no mask (every cached position is past); a
// prefill attends as training does, under the causal mask.
#include "kiln/models/gpt_decoder.h"

#include <cmath>
#include <utility>

#include "kiln/core/ops.h"

namespace kiln {

namespace {

// (T, H, D) -> (H, T, D): each head's keys (or values) one contiguous (T, D) matrix; also
// (T, 3, width) -> (3, T, width), the queries, keys and values of c_attn's rows apart, and back.
const std::vector<int> kByHead = {1, 0, 2};

// A Linear's output for one position: y = x Wᵀ + b.
void linear(const Tensor& x, Linear& layer, Tensor& y) {
  linear_forward(x, layer.weight().value, layer.bias()->value, y);
}

}  // namespace

GptDecoder::GptDecoder(Gpt& model)
    : model_(model), config_(model.config()), head_size_(config_.width / config_.heads) {
  const Device device = model.wte().weight().value.device();
  const std::int64_t c = config_.width, t = config_.context;
  for (const std::shared_ptr<GptBlock>& block : model.blocks())
    blocks_.push_back(Block{block.get(), Tensor::empty({t, c}, DType::f32, device),
                            Tensor::empty({t, c}, DType::f32, device)});
  logits_ = Tensor::empty({1, config_.vocabulary}, DType::f32, device);
  keys_heads_ = Tensor::empty({t * c}, DType::f32, device);
  values_heads_ = Tensor::empty({t * c}, DType::f32, device);
  reserve_rows(1);
}

void GptDecoder::reserve_rows(std::int64_t rows) {
  if (rows <= rows_) return;
  const Device device = logits_.device();
  const std::int64_t c = config_.width;
  const auto scratch = [&](std::int64_t width) {
    return Tensor::empty({rows, width}, DType::f32, device);
  };
  x_ = scratch(c), h_ = scratch(c), normed_ = scratch(c), qkv_ = scratch(3 * c);
  split_ = Tensor::empty({3, rows, c}, DType::f32, device);
  queries_ = scratch(c), merged_ = scratch(c), projected_ = scratch(c);
  hidden_ = scratch(4 * c), activated_ = scratch(4 * c);
  mean_ = Tensor::empty({rows}, DType::f32, device);
  invstd_ = Tensor::empty({rows}, DType::f32, device);
  scores_ = Tensor::empty({config_.heads * rows * config_.context}, DType::f32, device);
  probabilities_ = Tensor::empty({config_.heads * rows * config_.context}, DType::f32, device);
  rows_ = rows;
}

void GptDecoder::layer_norm(const Tensor& x, LayerNorm& norm, std::int64_t rows) {
  Tensor normed = normed_.slice(0, rows), mean = mean_.slice(0, rows),
         invstd = invstd_.slice(0, rows);
  layer_norm_forward(x, norm.weight().value, norm.bias().value, normed, mean, invstd, norm.eps());
}

// normed_ -> merged_ (rows, width): the heads' outputs side by side, as c_proj takes them.
// Appends the rows' keys and values to the block's cache (position-major, as c_attn writes them),
// regroups the cache by head with one permute (the heads' prefixes must be contiguous for
// batched_gemm), and attends with the rows' queries: one row sees the whole cache, several (a
// prefill into an empty cache) see their own and earlier positions.
void GptDecoder::attend(Block& block, std::int64_t rows) {
  const std::int64_t c = config_.width, h = config_.heads, d = head_size_;
  const std::int64_t t = length_ + rows;  // the cached positions and these
  Tensor qkv = qkv_.slice(0, rows);
  linear(normed_.slice(0, rows), block.layers->attn().c_attn(), qkv);
  // One row's regroupings move nothing ((1, 3, c) is (3, 1, c) in memory, (1, H, D) is (H, 1, D)):
  // a step takes views, a prefill permutes.
  const bool one = rows == 1;
  Tensor split =
      one ? qkv.view({3, 1, c}) : split_.view({3 * rows_, c}).slice(0, 3 * rows).view({3, rows, c});
  if (!one) permute(qkv.view({rows, 3, c}), kByHead, split);
  Tensor key_rows = block.keys.slice(length_, t), value_rows = block.values.slice(length_, t);
  copy(split.slice(1, 2).view({rows, c}), key_rows);
  copy(split.slice(2, 3).view({rows, c}), value_rows);
  Tensor keys = keys_heads_.slice(0, t * c).view({h, t, d});
  Tensor values = values_heads_.slice(0, t * c).view({h, t, d});
  permute(block.keys.slice(0, t).view({t, h, d}), kByHead, keys);
  permute(block.values.slice(0, t).view({t, h, d}), kByHead, values);
  Tensor query =
      one ? split.slice(0, 1).view({h, 1, d}) : queries_.slice(0, rows).view({h, rows, d});
  if (!one) permute(split.slice(0, 1).view({rows, h, d}), kByHead, query);
  Tensor scores = scores_.slice(0, h * rows * t).view({h, rows, t});
  Tensor probabilities = probabilities_.slice(0, h * rows * t).view({h, rows, t});
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  if (one) {
    batched_gemm(query, false, keys, true, scores, scale);
    softmax(scores, probabilities);
  } else {  // rows == t: square, as training's
    batched_gemm(query, false, keys, true, scores);
    causal_softmax_forward(scores, probabilities, scale);
  }
  // Several rows' heads go through hidden_ (free until the MLP) and are merged into merged_.
  Tensor merged = merged_.slice(0, rows).view({rows, h, d});
  Tensor heads_out = one ? merged.view({h, 1, d})
                         : hidden_.view({rows_ * 4 * c}).slice(0, rows * c).view({h, rows, d});
  batched_gemm(probabilities, false, values, false, heads_out);
  if (!one) permute(heads_out, kByHead, merged);
}

void GptDecoder::check_tokens(std::span<const std::int32_t> tokens) const {
  for (const std::int32_t token : tokens)
    KILN_CHECK(token >= 0 && token < config_.vocabulary,
               "GptDecoder: token {} is not in the model's vocabulary [0, {})", token,
               config_.vocabulary);
  KILN_CHECK(length_ + static_cast<std::int64_t>(tokens.size()) <= config_.context,
             "GptDecoder: the cache holds the model's whole context of {} positions; reset it "
             "and step the last tokens again to go on (each then takes a new position)",
             config_.context);
  KILN_CHECK(model_.wte().weight().value.device() == x_.device(),
             "GptDecoder: the model moved to {} after the decoder was made on {}; make the "
             "decoder after moving the model",
             model_.wte().weight().value.device().str(), x_.device().str());
}

const Tensor& GptDecoder::step(std::int32_t token) {
  check_tokens({&token, 1});
  const Tensor& wte = model_.wte().weight().value;
  const Tensor& wpe = model_.wpe().weight().value;
  Tensor x = x_.slice(0, 1);
  binary(BinaryOp::add, wte.slice(token, token + 1), wpe.slice(length_, length_ + 1), x);
  return run_blocks(1);
}

const Tensor& GptDecoder::prefill(std::span<const std::int32_t> prompt) {
  KILN_CHECK(!prompt.empty(), "GptDecoder::prefill needs at least one token");
  KILN_CHECK(length_ == 0,
             "GptDecoder::prefill fills an empty cache, but it holds {} positions; reset it "
             "first, or step the tokens one by one",
             length_);
  check_tokens(prompt);
  const auto rows = static_cast<std::int64_t>(prompt.size());
  if (rows == 1) return step(prompt[0]);
  reserve_rows(rows);
  const Tensor ids = Tensor::from_vector(std::vector<std::int32_t>(prompt.begin(), prompt.end()),
                                         {rows}, x_.device());
  Tensor tokens = h_.slice(0, rows), x = x_.slice(0, rows);
  embedding_forward(ids, model_.wte().weight().value, tokens);
  binary(BinaryOp::add, tokens, model_.wpe().weight().value.slice(0, rows), x);
  return run_blocks(rows);
}

const Tensor& GptDecoder::run_blocks(std::int64_t rows) {
  Tensor x = x_.slice(0, rows), h = h_.slice(0, rows), projected = projected_.slice(0, rows),
         hidden = hidden_.slice(0, rows), activated = activated_.slice(0, rows);
  for (Block& block : blocks_) {
    GptBlock& layers = *block.layers;
    layer_norm(x, layers.ln_1(), rows);
    attend(block, rows);
    linear(merged_.slice(0, rows), layers.attn().c_proj(), projected);
    binary(BinaryOp::add, x, projected, h);
    layer_norm(h, layers.ln_2(), rows);
    linear(normed_.slice(0, rows), layers.mlp().c_fc(), hidden);
    activation_forward(layers.mlp().gelu().kind(), hidden, activated);
    linear(activated, layers.mlp().c_proj(), projected);
    binary(BinaryOp::add, h, projected, x);
  }
  layer_norm(x.slice(rows - 1, rows), model_.ln_f(), 1);
  linear_forward(normed_.slice(0, 1), std::as_const(model_).lm_head().rows(), Tensor(), logits_);
  length_ += rows;
  return logits_;
}

}  // namespace kiln
