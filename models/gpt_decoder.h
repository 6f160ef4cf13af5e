// GptDecoder: a Gpt's inference one position at a time with a key-value cache, what sampling runs
// (models/generate.h). Each step returns the logits of the next token: the last row of the full
// forward over the same tokens, at the cost of one position instead of all of them. Inference only
// (no dropout, no backward); it reads the model's parameters where they lie, so it works on the
// CPU and a GPU through the same ops.
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/core/op_kinds.h"
#include "kiln/core/tensor.h"
#include "kiln/models/gpt.h"

namespace kiln {

class GptDecoder {
 public:
  // Keeps a reference to `model`, which must outlive the decoder and stay on the device it is on
  // now (the cache is allocated there, for the model's whole context).
  explicit GptDecoder(Gpt& model);

  // token in [0, vocabulary), at position length() < context -> the logits (vocabulary) of the
  // next token, on the model's device; valid until the next step. The cache then holds one more
  // position. A full cache (length() == context) is a kiln::Error: reset and step the last tokens
  // again, at their new positions.
  // The token runs through wte + wpe, every block (ln_1, c_attn, attention of its query over the
  // keys and values of all positions so far, kept per block, c_proj, ln_2, MLP) and ln_f and the
  // tied head.
  const Tensor& step(std::int32_t token);
  // Forgets every position (the next step is position 0).
  void reset() { length_ = 0; }
  std::int64_t length() const { return length_; }
  std::int64_t capacity() const { return config_.context; }

 private:
  // One block, whose parameters are read at each step (so they may be reloaded in place), and
  // its cache.
  struct Block {
    GptBlock* layers;
    Tensor keys, values;  // (context, width): position t's keys and values, heads side by side
  };
  void layer_norm(const Tensor& x, LayerNorm& norm);
  void attend(Block& block);

  Gpt& model_;
  GptConfig config_;
  std::int64_t head_size_;
  std::vector<Block> blocks_;
  std::int64_t length_ = 0;
  // Scratch of one position, allocated once: the residual stream and each stage's output.
  Tensor x_, h_, normed_, qkv_, merged_, projected_, hidden_, activated_, logits_;
  Tensor mean_, invstd_;              // layer_norm's row statistics, unused here
  Tensor keys_heads_, values_heads_;  // (H, context, D) capacity: the cache regrouped by head
  Tensor scores_, probabilities_;     // (H, context) capacity
};

}  // namespace kiln
