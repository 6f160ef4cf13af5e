// generate(): the prompt's checks, then one step per new token on the cached path (GptDecoder)
// or the full forward (Module::predict over the last `context` tokens), and sample_token on the
// host copy of the last position's logits. The draws come from a Generator seeded with the seed
// (Philox, core/philox.h), one counter per token, so the output depends only on the seed.
#include "kiln/models/generate.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>

#include "kiln/core/memory_budget.h"
#include "kiln/core/philox.h"
#include "kiln/core/random.h"
#include "kiln/models/gpt_decoder.h"

namespace kiln {

namespace {

// The text (prompt and new tokens, 4 bytes each) must fit in the host's memory: refused here,
// not by the vector's allocator mid-run (std::length_error, std::bad_alloc).
void check_text_fits(std::int64_t prompt, std::int64_t tokens) {
  constexpr std::int64_t kIdBytes = sizeof(std::int32_t);
  const std::uint64_t available = available_memory(Device::cpu());
  const std::int64_t most = std::numeric_limits<std::int64_t>::max() / kIdBytes - prompt;
  const long double bytes = static_cast<long double>(prompt + std::min(tokens, most)) * kIdBytes;
  KILN_CHECK(
      tokens <= most && (available == 0 || bytes <= static_cast<long double>(available)),
      "{} {} makes a text of {} token ids, {:.1f} GiB, more than the "
      "{:.1f} GiB of host memory available; draw fewer tokens",
      Setting::generate_tokens, tokens,
      static_cast<long double>(prompt) + static_cast<long double>(tokens),
      static_cast<double>((static_cast<long double>(prompt) + tokens) * kIdBytes / 1073741824.0L),
      static_cast<double>(available) / 1073741824.0);
}

void check_request(const Gpt& model, std::span<const std::int32_t> prompt,
                   const GenerateOptions& o) {
  const GptConfig& c = model.config();
  KILN_CHECK(!prompt.empty(),
             "generate needs a prompt of at least one token: the model predicts each token from "
             "the ones before it");
  KILN_CHECK(static_cast<std::int64_t>(prompt.size()) <= c.context,
             "generate: the prompt has {} tokens but the model's context is {}; give at most {} "
             "(the last ones of the text)",
             prompt.size(), c.context, c.context);
  for (std::size_t i = 0; i < prompt.size(); ++i)
    KILN_CHECK(prompt[i] >= 0 && prompt[i] < c.vocabulary,
               "generate: prompt token {} is {}, outside the model's vocabulary [0, {})", i,
               prompt[i], c.vocabulary);
  KILN_CHECK(o.tokens >= 0, "{} must be >= 0, found {}", Setting::generate_tokens, o.tokens);
  check_text_fits(static_cast<std::int64_t>(prompt.size()), o.tokens);
  KILN_CHECK(std::isfinite(o.temperature) && o.temperature >= 0.0f,
             "{} must be a finite number >= 0 (0: greedy), found {}", Setting::generate_temperature,
             o.temperature);
  KILN_CHECK(o.top_k >= 0, "{} must be >= 0 (0: no limit), found {}", Setting::generate_top_k,
             o.top_k);
}

// A uniform double in [0, 1) from 53 bits of the generator's next counter.
double uniform_draw(Generator& gen) {
  const philox::Uint4 words = philox::draw(gen.seed(), gen.advance(1));
  const std::uint64_t bits = (static_cast<std::uint64_t>(words.x) << 21) ^ (words.y >> 11);
  return static_cast<double>(bits & ((std::uint64_t{1} << 53) - 1)) * 0x1p-53;
}

// The logits of the next token after `text` from a full forward over its last `context` tokens.
std::vector<float> full_forward_logits(Gpt& model, const std::vector<std::int32_t>& text) {
  const std::int64_t t =
      std::min<std::int64_t>(static_cast<std::int64_t>(text.size()), model.config().context);
  const std::vector<float> window(text.end() - t, text.end());  // ids as float32, as training
  const Device device = model.wte().weight().value.device();
  const Tensor logits = model.predict(Tensor::from_vector(window, {1, t}, device));
  const std::int64_t v = model.config().vocabulary;
  return logits.view({t, v}).slice(t - 1, t).to_vector<float>();
}

}  // namespace

std::int32_t sample_token(std::span<const float> logits, float temperature, std::int64_t top_k,
                          double draw) {
  KILN_CHECK(!logits.empty(), "sample_token needs at least one logit");
  // A NaN (or +inf) logit has no probability: drawing past it would hide a broken model.
  const auto bad = std::find_if(logits.begin(), logits.end(), [](float l) {
    return std::isnan(l) || l == std::numeric_limits<float>::infinity();
  });
  KILN_CHECK(bad == logits.end(),
             "sample_token: logit {} of {} is {}: the model's output is not a number there (its "
             "weights hold NaN or inf, or the run that trained them diverged); no token can be "
             "drawn from it",
             bad - logits.begin(), logits.size(), *bad);
  KILN_CHECK(
      *std::max_element(logits.begin(), logits.end()) > -std::numeric_limits<float>::infinity(),
      "sample_token: all {} logits are -inf: every token is ruled out, none can be drawn",
      logits.size());
  if (temperature == 0.0f || top_k == 1)
    return static_cast<std::int32_t>(std::max_element(logits.begin(), logits.end()) -
                                     logits.begin());
  const auto v = static_cast<std::int64_t>(logits.size());
  // nanoGPT keeps every logit >= the k-th largest (ties at the threshold stay in).
  float threshold = -std::numeric_limits<float>::infinity();
  if (top_k > 0 && top_k < v) {
    std::vector<float> sorted(logits.begin(), logits.end());
    std::nth_element(sorted.begin(), sorted.begin() + (top_k - 1), sorted.end(), std::greater<>());
    threshold = sorted[static_cast<std::size_t>(top_k - 1)];
  }
  const float top = *std::max_element(logits.begin(), logits.end());
  std::vector<double> weights(logits.size(), 0.0);
  double total = 0.0;
  for (std::size_t i = 0; i < logits.size(); ++i) {
    if (logits[i] < threshold) continue;
    weights[i] = std::exp((static_cast<double>(logits[i]) - top) / temperature);
    total += weights[i];
  }
  const double target = draw * total;
  double running = 0.0;
  std::size_t last_kept = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (weights[i] == 0.0) continue;
    running += weights[i];
    last_kept = i;
    if (target < running) return static_cast<std::int32_t>(i);
  }
  return static_cast<std::int32_t>(last_kept);  // draw * total rounded up to the total
}

std::vector<std::int32_t> generate(Gpt& model, std::span<const std::int32_t> prompt,
                                   const GenerateOptions& options) {
  check_request(model, prompt, options);
  std::vector<std::int32_t> text(prompt.begin(), prompt.end());
  text.reserve(text.size() + static_cast<std::size_t>(options.tokens));  // checked to fit
  const std::int64_t context = model.config().context;
  Generator gen(options.seed);
  std::optional<GptDecoder> decoder;
  std::vector<float> logits;
  if (options.kv_cache && options.tokens > 0) {
    decoder.emplace(model);
    logits = decoder->prefill(prompt).to_vector<float>();
  }
  for (std::int64_t i = 0; i < options.tokens; ++i) {
    // The cache serves while every token is at its own position: up to `context` tokens.
    if (!decoder || static_cast<std::int64_t>(text.size()) > context)
      logits = full_forward_logits(model, text);
    const double draw = uniform_draw(gen);
    const std::int32_t next = sample_token(logits, options.temperature, options.top_k, draw);
    text.push_back(next);
    if (decoder && static_cast<std::int64_t>(text.size()) <= context && i + 1 < options.tokens)
      logits = decoder->step(next).to_vector<float>();
  }
  return text;
}

}  // namespace kiln
