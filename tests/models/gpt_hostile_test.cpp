// Hostile input, round 4, on the GPT surfaces: a gpt: spec names the part that is wrong; its
// memory estimate counts every layer from the shape without building one (the same figures as the
// built model's), so a GPT larger than memory is refused up front with them, as is one of 2^63
// layers; GptConfig::vocabulary must be given; a stop request ends a long build; generate and
// sample_token refuse token counts that cannot be held and logits that are not numbers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <limits>
#include <vector>

#include "kiln/core/memory.h"
#include "kiln/core/memory_budget.h"
#include "kiln/core/ops.h"
#include "kiln/models/generate.h"
#include "kiln/models/gpt.h"
#include "kiln/models/memory_estimate.h"
#include "kiln/models/presets.h"
#include "kiln/spec/model_spec.h"
#include "tests/support/error_testing.h"

using kiln::Shape;
using kiln::testing::error_message;
using ::testing::HasSubstr;

namespace {

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

std::unique_ptr<kiln::Gpt> small_gpt(std::int64_t vocabulary = 13) {
  kiln::Generator gen(5);
  return std::make_unique<kiln::Gpt>(
      kiln::GptConfig{.layers = 1, .heads = 2, .width = 8, .context = 6, .vocabulary = vocabulary},
      gen);
}

}  // namespace

TEST(GptSpec, EachPartOfTheSpecIsNamedWhenItIsWrong) {
  struct Case {
    const char* spec;
    const char* named;
  };
  for (const Case& c : {Case{"gpt:0-2-16-16", "its layer count (number 1 of"},
                        Case{"gpt:1-0-16-16", "its head count (number 2 of"},
                        Case{"gpt:1-2-0-16", "its width (number 3 of"},
                        Case{"gpt:1-2-16-0", "its context (number 4 of"},
                        Case{"gpt:1-2-16-x", "its context (number 4 of"},
                        Case{"gpt:1--16-16", "its head count (number 2 of"},
                        Case{"gpt:-1-2-16-16", "its layer count (number 1 of"},
                        Case{"gpt:1-2-16-99999999999999999999", "its context (number 4 of"}}) {
    const std::string message = error_message([&] { (void)kiln::gpt_config(c.spec); });
    EXPECT_THAT(message, HasSubstr(c.named)) << c.spec;
    EXPECT_THAT(message, ::testing::Not(HasSubstr("layer width"))) << c.spec;
    EXPECT_THAT(message, ::testing::Not(HasSubstr("data"))) << c.spec;
  }
  EXPECT_THAT(error_message([&] { (void)kiln::gpt_config("gpt:1-2-16-0"); }),
              HasSubstr("the longest window of tokens the model reads"));
  EXPECT_THAT(error_message([&] { (void)kiln::gpt_config("gpt:1-2-16"); }),
              HasSubstr("four numbers, found 3"));
  EXPECT_THAT(error_message([&] { (void)kiln::gpt_config("gpt:1-2-16-8-4"); }),
              HasSubstr("four numbers, found 5"));
  EXPECT_THAT(error_message([&] { (void)kiln::gpt_config("gpt:1-3-16-8"); }),
              HasSubstr("the width 16 must be a multiple of the 3 heads"));
  EXPECT_EQ(kiln::model_context("gpt:3-2-16-24"), 24);
  EXPECT_EQ(kiln::model_context("mlp:4-3"), 0);
  EXPECT_THROW((void)kiln::model_context("gpt:3-2-16-0"), kiln::Error);
  kiln::Generator gen(1);
  EXPECT_THAT(error_message([&] { (void)kiln::build_model("gpt:1-2-16-8", Shape{9}, 11, gen); }),
              HasSubstr("takes windows of at most 8 token ids (its context)"));
}

TEST(GptMemoryEstimate, TheSpecIsCountedFromItsShapeAsTheBuiltModelWouldBe) {
  struct Case {
    const char* spec;
    std::int64_t context, vocabulary, batch;
    int state;
  };
  for (const Case& c : {Case{"gpt:1-1-8-5", 5, 7, 1, 0}, Case{"gpt:3-2-12-9", 9, 33, 7, 2},
                        Case{"gpt:2-4-20-17", 17, 65, 3, 1}}) {
    kiln::Generator gen(3);
    kiln::Model built =
        kiln::build_model(c.spec, Shape{c.context}, static_cast<std::int32_t>(c.vocabulary), gen);
    const kiln::MemoryEstimate want =
        kiln::estimate_training_memory(*built.net, Shape{c.batch, c.context}, c.state);
    const kiln::MemoryEstimate got = kiln::estimate_model_memory(
        c.spec, Shape{c.context}, static_cast<std::int32_t>(c.vocabulary), c.batch, c.state);
    EXPECT_EQ(got.parameters, want.parameters) << c.spec;
    EXPECT_EQ(got.optimizer_state, want.optimizer_state) << c.spec;
    EXPECT_EQ(got.activations, want.activations) << c.spec;
    EXPECT_EQ(built.net->parameter_count(),
              kiln::gpt_parameter_count(static_cast<kiln::Gpt&>(*built.net).config()));
  }
}

TEST(GptMemoryEstimate, AGptLargerThanMemoryIsRefusedUpFrontWithTheFigures) {
  // Width 65536: 12 x 2^32 weights a block, 192 GiB; and 2^63 - 1 layers; and a context whose
  // attention matrices pass int64. Each is refused within the check, before any allocation.
  for (const std::string spec :
       {std::string("gpt:2-4-65536-8"), "gpt:" + std::to_string(kInt64Max) + "-1-8-8",
        std::string("gpt:1-1-8-3037000500")}) {
    const std::int64_t context = kiln::gpt_config(spec).context;
    const auto start = std::chrono::steady_clock::now();
    const std::string message = error_message(
        [&] { kiln::check_model_fits(spec, Shape{context}, 256, 4, 2, kiln::Device::cpu()); });
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5)) << spec;
    EXPECT_THAT(message, HasSubstr("model '" + spec + "' with batches of 4 needs")) << spec;
    EXPECT_THAT(message, HasSubstr("parameters")) << spec;
    EXPECT_THAT(message, HasSubstr("activations")) << spec;
  }
}

TEST(Gpt, AConfigWhoseParametersPassMemoryIsRefusedBeforeAnyLayer) {
  kiln::Generator gen(1);
  for (const kiln::GptConfig& c :
       {kiln::GptConfig{.layers = kInt64Max, .heads = 1, .width = 8, .context = 8, .vocabulary = 5},
        kiln::GptConfig{.layers = 2, .heads = 1, .width = 1 << 20, .context = 8, .vocabulary = 5},
        kiln::GptConfig{
            .layers = 1, .heads = 1, .width = 8, .context = 8, .vocabulary = kInt64Max}}) {
    kiln::reset_peak_memory_stats(kiln::Device::cpu());
    const std::size_t before = kiln::memory_stats(kiln::Device::cpu()).in_use;
    const std::string message = error_message([&] { kiln::Gpt model(c, gen); });
    EXPECT_THAT(message, HasSubstr("parameters take"));
    EXPECT_THAT(message, HasSubstr("GiB of host memory available"));
    EXPECT_EQ(kiln::memory_stats(kiln::Device::cpu()).peak_in_use, before)
        << "nothing was allocated";
  }
}

TEST(Gpt, AnUnsetVocabularyIsRefusedNotTrainedToFailAtDecoding) {
  kiln::Generator gen(1);
  const std::string message = error_message([&] {
    kiln::Gpt model(kiln::GptConfig{.layers = 1, .heads = 1, .width = 8, .context = 4}, gen);
  });
  EXPECT_THAT(message, HasSubstr("GptConfig::vocabulary is unset"));
  EXPECT_THAT(message, HasSubstr("Vocabulary::size"));
  EXPECT_EQ(kiln::gpt_config("gpt:1-1-8-4").vocabulary, 0) << "the data gives it";
  EXPECT_THROW(
      kiln::Gpt(
          kiln::GptConfig{.layers = 1, .heads = 1, .width = 8, .context = 4, .vocabulary = -3},
          gen),
      kiln::Error);
}

TEST(ModelBuild, AStopRequestEndsALongBuildAfterTheLayerInProgress) {
  std::atomic<bool> stop{true};
  kiln::Generator gen(1);
  const std::string gpt =
      error_message([&] { (void)kiln::build_model("gpt:100000-1-8-8", Shape{8}, 5, gen, &stop); });
  EXPECT_THAT(gpt, HasSubstr("stopped while building a GPT's blocks: 1 of 100000 built"));
  EXPECT_THROW((void)kiln::build_model("gpt:100000-1-8-8", Shape{8}, 5, gen, &stop),
               kiln::Interrupted);
  std::vector<std::int64_t> widths(2000, 3);
  EXPECT_THAT(error_message([&] { (void)kiln::mlp(widths, gen, &stop); }),
              HasSubstr("stopped while building an MLP: 1 of 1999 layers built"));
  stop = false;
  EXPECT_EQ(kiln::build_model("gpt:3-1-8-8", Shape{8}, 5, gen, &stop).net->parameters().size(),
            2u + 3u * 12u + 2u);
}

TEST(Generate, ANumberOfTokensThatCannotBeHeldIsAKilnError) {
  auto model = small_gpt();
  const std::vector<std::int32_t> prompt = {1, 2};
  const std::uint64_t available = kiln::available_memory(kiln::Device::cpu());
  for (const std::int64_t tokens : {kInt64Max, kInt64Max - 1, kInt64Max / 4, std::int64_t{1} << 62,
                                    static_cast<std::int64_t>(available / 2)}) {
    const std::string message =
        error_message([&] { (void)kiln::generate(*model, prompt, {.tokens = tokens}); });
    EXPECT_THAT(message,
                HasSubstr(fmt::format("GenerateOptions::tokens {} makes a text of", tokens)));
    EXPECT_THAT(message, HasSubstr("GiB of host memory available; draw fewer tokens"));
  }
  EXPECT_EQ(kiln::generate(*model, prompt, {.tokens = 9}).size(), 11u);
}

TEST(SampleToken, LogitsThatAreNotNumbersAreRefusedNotDrawnFrom) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (std::size_t at : {0u, 3u, 6u}) {
    for (const float bad : {nan, inf}) {
      std::vector<float> logits = {0.5f, -1.0f, 2.0f, 0.0f, 1.5f, -0.5f, 0.25f};
      logits[at] = bad;
      for (const float temperature : {0.0f, 0.7f, 1.0f}) {
        const std::string message =
            error_message([&] { (void)kiln::sample_token(logits, temperature, 0, 0.5); });
        EXPECT_THAT(message, HasSubstr(fmt::format("logit {} of 7 is", at)));
        EXPECT_THAT(message, HasSubstr("no token can be drawn"));
      }
    }
  }
  const std::vector<float> ruled_out(5, -inf);
  EXPECT_THAT(error_message([&] { (void)kiln::sample_token(ruled_out, 1.0f, 0, 0.3); }),
              HasSubstr("all 5 logits are -inf"));
  // -inf beside finite logits is a token ruled out, as a mask makes it.
  EXPECT_EQ(kiln::sample_token(std::vector<float>{-inf, 1.0f, -inf}, 1.0f, 0, 0.99), 1);
  // A model whose weights hold NaN: generate names the logits, not a drawn token.
  auto model = small_gpt();
  kiln::fill(model->ln_f().parameters()[0]->value, nan);
  EXPECT_THAT(error_message([&] {
                (void)kiln::generate(*model, std::vector<std::int32_t>{1}, {.tokens = 3});
              }),
              HasSubstr("is nan"));
}
