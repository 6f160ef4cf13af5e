// Sampling from a GPT (models/generate.h) and its key-value cache (models/gpt_decoder.h) on a
// random tiny GPT (2 layers, 2 heads, width 16, context 8, vocabulary 11, weights N(0, 0.3)): the
// step's and the prefill's logits against the full forward's, the same tokens with and without the
// cache (also past the context), greedy and top-k, seeds, sample_token's draws, and the errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <span>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/models/generate.h"
#include "kiln/models/gpt_decoder.h"
#include "tests/support/tensor_testing.h"

using kiln::Tensor;

namespace {

constexpr std::int64_t kContext = 8, kVocabulary = 11;

std::unique_ptr<kiln::Gpt> random_gpt(std::uint64_t seed) {
  kiln::Generator gen(seed);
  kiln::GptConfig config;
  config.layers = 2, config.heads = 2, config.width = 16, config.context = kContext;
  config.vocabulary = kVocabulary;
  auto model = std::make_unique<kiln::Gpt>(config, gen);
  for (kiln::Parameter* p : model->parameters()) kiln::normal_(p->value, 0.0f, 0.3f, gen);
  return model;
}

// The full forward's logits of the position after `text` (its last kContext tokens).
std::vector<float> last_logits(kiln::Gpt& model, const std::vector<std::int32_t>& text) {
  const auto t = std::min<std::int64_t>(static_cast<std::int64_t>(text.size()), kContext);
  const std::vector<float> ids(text.end() - t, text.end());
  const Tensor logits = model.predict(Tensor::from_vector(ids, {1, t}));
  return logits.view({t, kVocabulary}).slice(t - 1, t).to_vector<float>();
}

std::int32_t argmax(const std::vector<float>& v) {
  return static_cast<std::int32_t>(std::max_element(v.begin(), v.end()) - v.begin());
}

const std::vector<std::int32_t> kPrompt = {3, 1, 4};

}  // namespace

TEST(GptDecoder, StepLogitsEqualTheFullForwardsLastRowAtEveryPosition) {
  auto model = random_gpt(1);
  kiln::GptDecoder decoder(*model);
  const std::vector<std::int32_t> tokens = {5, 0, 10, 7, 7, 2, 9, 1};
  std::vector<std::int32_t> text;
  for (const std::int32_t token : tokens) {
    text.push_back(token);
    const std::vector<float> cached = decoder.step(token).to_vector<float>();
    EXPECT_TRUE(kiln::testing::all_close(cached, last_logits(*model, text), 1e-5f, 1e-5f))
        << "after " << text.size() << " tokens";
  }
  EXPECT_EQ(decoder.length(), kContext);
  EXPECT_THROW(decoder.step(1), kiln::Error);  // the context is full
  decoder.reset();
  EXPECT_TRUE(kiln::testing::all_close(decoder.step(5).to_vector<float>(), last_logits(*model, {5}),
                                       1e-5f, 1e-5f));
  EXPECT_THROW(decoder.step(static_cast<std::int32_t>(kVocabulary)), kiln::Error);
  EXPECT_THROW(decoder.step(-1), kiln::Error);
}

TEST(GptDecoder, PrefillGivesTheLogitsAndCacheOfStepsTokenByToken) {
  auto model = random_gpt(3);
  const std::vector<std::int32_t> tokens = {5, 0, 10, 7, 7, 2, 9, 1};
  for (std::size_t n = 1; n <= tokens.size(); ++n) {
    const std::span<const std::int32_t> prompt(tokens.data(), n);
    kiln::GptDecoder stepped(*model), prefilled(*model);
    std::vector<float> by_steps;
    for (const std::int32_t token : prompt) by_steps = stepped.step(token).to_vector<float>();
    const std::vector<float> at_once = prefilled.prefill(prompt).to_vector<float>();
    EXPECT_TRUE(kiln::testing::all_close(at_once, by_steps, 1e-5f, 1e-5f)) << n << " tokens";
    EXPECT_EQ(prefilled.length(), static_cast<std::int64_t>(n));
    if (n == tokens.size()) continue;
    // The cache it leaves serves the next step as the stepped one does.
    EXPECT_TRUE(kiln::testing::all_close(prefilled.step(3).to_vector<float>(),
                                         stepped.step(3).to_vector<float>(), 1e-5f, 1e-5f))
        << "the step after a prefill of " << n;
  }
  kiln::GptDecoder decoder(*model);
  EXPECT_THROW(decoder.prefill({}), kiln::Error);
  decoder.step(1);
  EXPECT_THROW(decoder.prefill(tokens), kiln::Error);  // into a cache that is not empty
  decoder.reset();
  const std::vector<std::int32_t> too_long(kContext + 1, 1), outside = {1, kVocabulary};
  EXPECT_THROW(decoder.prefill(too_long), kiln::Error);
  EXPECT_THROW(decoder.prefill(outside), kiln::Error);
  EXPECT_EQ(decoder.length(), 0);
}

TEST(Generate, ReturnsThePromptThenTheNewTokensTheSameWithAndWithoutTheCache) {
  auto model = random_gpt(2);
  kiln::GenerateOptions options;
  options.tokens = 12;  // 3 + 12 tokens: past the context of 8, where the window slides
  options.seed = 7;
  const auto cached = kiln::generate(*model, kPrompt, options);
  options.kv_cache = false;
  const auto uncached = kiln::generate(*model, kPrompt, options);
  ASSERT_EQ(cached.size(), kPrompt.size() + 12);
  EXPECT_TRUE(std::equal(kPrompt.begin(), kPrompt.end(), cached.begin()));
  EXPECT_EQ(cached, uncached);
  for (const std::int32_t token : cached) EXPECT_TRUE(token >= 0 && token < kVocabulary);
  options.tokens = 0;
  EXPECT_EQ(kiln::generate(*model, kPrompt, options), kPrompt);
  options.kv_cache = true;
  EXPECT_EQ(kiln::generate(*model, kPrompt, options), kPrompt);
}

TEST(Generate, GreedyPicksTheMostLikelyTokenAndTopOneIsGreedy) {
  auto model = random_gpt(3);
  kiln::GenerateOptions options;
  options.tokens = 10;
  options.temperature = 0.0f;
  const auto greedy = kiln::generate(*model, kPrompt, options);
  for (std::size_t i = kPrompt.size(); i < greedy.size(); ++i) {
    const std::vector<std::int32_t> before(greedy.begin(), greedy.begin() + static_cast<long>(i));
    EXPECT_EQ(greedy[i], argmax(last_logits(*model, before))) << "token " << i;
  }
  options.temperature = 1.0f;
  options.top_k = 1;
  options.seed = 99;
  EXPECT_EQ(kiln::generate(*model, kPrompt, options), greedy);
  options.kv_cache = false;
  EXPECT_EQ(kiln::generate(*model, kPrompt, options), greedy);
}

TEST(Generate, TheSameSeedGivesTheSameTextAndAnotherSeedAnother) {
  auto model = random_gpt(4);
  kiln::GenerateOptions options;
  options.tokens = 30;
  options.temperature = 2.0f;
  options.seed = 1;
  const auto first = kiln::generate(*model, kPrompt, options);
  EXPECT_EQ(kiln::generate(*model, kPrompt, options), first);
  options.seed = 2;
  EXPECT_NE(kiln::generate(*model, kPrompt, options), first);
}

TEST(Generate, TopKDrawsOnlyAmongTheKLargestLogits) {
  auto model = random_gpt(5);
  kiln::GenerateOptions options;
  options.tokens = 6;
  options.temperature = 5.0f;  // nearly uniform over what top-k keeps
  options.top_k = 3;
  const auto text = kiln::generate(*model, kPrompt, options);
  for (std::size_t i = kPrompt.size(); i < text.size(); ++i) {
    std::vector<float> logits =
        last_logits(*model, {text.begin(), text.begin() + static_cast<long>(i)});
    std::vector<float> sorted = logits;
    std::sort(sorted.begin(), sorted.end(), std::greater<>());
    EXPECT_GE(logits[static_cast<std::size_t>(text[i])], sorted[2]) << "token " << i;
  }
}

TEST(SampleToken, DrawsByTheSoftmaxOfTheScaledLogits) {
  // softmax of {0, log 3} is {0.25, 0.75}; at temperature 2 it is {1/(1+sqrt 3), ...} ~ {0.366,
  // ...}.
  const std::vector<float> logits = {0.0f, std::log(3.0f)};
  EXPECT_EQ(kiln::sample_token(logits, 1.0f, 0, 0.24), 0);
  EXPECT_EQ(kiln::sample_token(logits, 1.0f, 0, 0.26), 1);
  EXPECT_EQ(kiln::sample_token(logits, 2.0f, 0, 0.36), 0);
  EXPECT_EQ(kiln::sample_token(logits, 2.0f, 0, 0.37), 1);
  EXPECT_EQ(kiln::sample_token(logits, 0.0f, 0, 0.0), 1);  // greedy
  // top_k 2 of {1, 5, 3, 4}: only ids 1 and 3, whatever the draw.
  const std::vector<float> four = {1.0f, 5.0f, 3.0f, 4.0f};
  for (double draw : {0.0, 0.1, 0.5, 0.9, 0.999999})
    EXPECT_TRUE(kiln::sample_token(four, 100.0f, 2, draw) == 1 ||
                kiln::sample_token(four, 100.0f, 2, draw) == 3);
  EXPECT_EQ(kiln::sample_token(four, 100.0f, 2, 0.999999), 3);
  EXPECT_EQ(kiln::sample_token(four, 100.0f, 2, 0.0), 1);
}

TEST(Generate, RefusesAnEmptyOrTooLongPromptAndTokensOutsideTheVocabulary) {
  auto model = random_gpt(6);
  const kiln::GenerateOptions options;
  auto message = [&](const std::vector<std::int32_t>& prompt, const kiln::GenerateOptions& o) {
    try {
      kiln::generate(*model, prompt, o);
    } catch (const kiln::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({}, options).find("at least one token"), std::string::npos);
  EXPECT_NE(message(std::vector<std::int32_t>(kContext + 1, 0), options).find("context is 8"),
            std::string::npos);
  EXPECT_NE(message({1, 11}, options).find("prompt token 1 is 11"), std::string::npos);
  EXPECT_NE(message({-2}, options).find("outside the model's vocabulary"), std::string::npos);
  kiln::GenerateOptions bad = options;
  bad.temperature = -1.0f;
  EXPECT_NE(message({1}, bad).find("temperature"), std::string::npos);
  bad = options;
  bad.top_k = -1;
  EXPECT_NE(message({1}, bad).find("top_k"), std::string::npos);
}
