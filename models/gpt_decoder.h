// GptDecoder: a Gpt's inference with a key-value cache, what sampling runs (models/generate.h): a
// prompt prefilled in one pass, then one position per step. Each returns the logits of the next
// token, the last row of the full forward over the same tokens. Inference only (no dropout, no
// backward); it reads the model's parameters where they lie, on the CPU or a GPU.
#pragma once

#include <cstdint>
#include <span>
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
  // The prompt's 1 .. context tokens into an empty cache (length() == 0, else a kiln::Error) in
  // one pass: every block runs on all of them at once, its attention under the causal mask, as
  // in training. Returns the logits after the last one, as stepping them one by one would (the
  // same up to float rounding); the cache then holds prompt.size() positions.
  const Tensor& prefill(std::span<const std::int32_t> prompt);
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
  // The tokens' rows of the residual stream, x_'s first rows, through every block, then the
  // last row through ln_f and the head into logits_; the cache holds the tokens afterwards.
  const Tensor& run_blocks(std::int64_t rows);
  void layer_norm(const Tensor& x, LayerNorm& norm, std::int64_t rows);
  void attend(Block& block, std::int64_t rows);
  void check_tokens(std::span<const std::int32_t> tokens) const;
  void reserve_rows(std::int64_t rows);

  Gpt& model_;
  GptConfig config_;
  std::int64_t head_size_;
  std::vector<Block> blocks_;
  std::int64_t length_ = 0;
  // Scratch for rows_ positions (1 until a prefill needs more), allocated once for each size:
  // the residual stream and each stage's output.
  std::int64_t rows_ = 0;
  Tensor x_, h_, normed_, qkv_, split_, queries_, merged_, projected_, hidden_, activated_;
  Tensor mean_, invstd_;  // layer_norm's row statistics, unused here
  Tensor logits_;
  Tensor keys_heads_, values_heads_;  // (H, context, D) capacity: the cache regrouped by head
  Tensor scores_, probabilities_;     // (H, rows_, context) capacity
};

}  // namespace kiln
