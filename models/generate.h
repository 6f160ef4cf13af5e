// Sampling from a trained GPT, as nanoGPT's generate(): the logits of the last position divided
// by the temperature, the top_k largest kept (top_k > 0), softmax, one token drawn; temperature
// 0 picks the most likely token (greedy). Deterministic for a seed, with or without the key-value
// cache, and the two paths give the same tokens.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kiln/models/gpt.h"

namespace kiln {

struct GenerateOptions {
  std::int64_t tokens = 100;  // new tokens to draw, >= 0
  float temperature = 1.0f;   // >= 0; 0: greedy
  std::int64_t top_k = 0;     // >= 0; 0: every token may be drawn
  std::uint64_t seed = 0;     // the draws' Generator (core/random.h)
  bool kv_cache = true;
};

// prompt: 1 .. context token ids in [0, vocabulary) -> the prompt followed by options.tokens new
// tokens. Runs on the model's device, in inference (no dropout); the model's mode is kept.
// Throws kiln::Error for an empty or too long prompt, an id outside the vocabulary, or options
// out of range.
// With kv_cache the prompt is prefilled in one pass and each new token costs one position
// (models/gpt_decoder.h); without it, each token costs a full forward over the text so far. Once
// the text is longer than the model's context, every token sees only the last `context` tokens,
// at positions 0 .. context - 1 (as nanoGPT crops): their positions all change with each token,
// so no cache can be kept and each further token costs a full forward over the last `context`
// tokens on either path.
std::vector<std::int32_t> generate(Gpt& model, std::span<const std::int32_t> prompt,
                                   const GenerateOptions& options);

// One draw from logits (vocabulary) on the host as generate() draws: temperature, top_k as
// above; `draw` is a uniform number in [0, 1).
std::int32_t sample_token(std::span<const float> logits, float temperature, std::int64_t top_k,
                          double draw);

}  // namespace kiln
