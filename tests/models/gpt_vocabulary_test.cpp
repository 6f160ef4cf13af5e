// A GPT's vocabulary from its spec: gpt2's shape (12-12-768-1024, 50257 padded to 50304), the
// :vocab=N option against the data's ids, windows shorter than the context, and llm.c's padding
// on a tiny GPT (wte's rows rounded up to 128, the padded rows zero before and after training and
// never a logit).
#include <gtest/gtest.h>

#include "kiln/core/error.h"
#include "kiln/layers/cross_entropy_loss.h"
#include "kiln/models/gpt.h"
#include "kiln/optim/adam.h"
#include "kiln/spec/model_spec.h"
#include "tests/support/error_testing.h"
#include "tests/support/tensor_testing.h"

using kiln::Shape;
using kiln::Tensor;
using kiln::testing::error_message;

namespace {

bool all_zero(const Tensor& t) {
  for (const float v : t.to_vector<float>())
    if (v != 0.0f) return false;
  return true;
}

}  // namespace

TEST(GptSpec, Gpt2IsGpt2SmallWithLlmcsPaddedVocabulary) {
  const kiln::GptConfig c = kiln::gpt_config("gpt2");
  EXPECT_EQ(c.layers, 12);
  EXPECT_EQ(c.heads, 12);
  EXPECT_EQ(c.width, 768);
  EXPECT_EQ(c.context, 1024);
  EXPECT_EQ(c.vocabulary, 50257);
  EXPECT_TRUE(c.pad_vocabulary);
  EXPECT_EQ(c.embedding_rows(), 50304);
  EXPECT_EQ(kiln::model_context("gpt2"), 1024);
  EXPECT_TRUE(kiln::is_gpt_spec("gpt2"));
  EXPECT_FALSE(kiln::is_gpt_spec("gpt3"));
}

TEST(GptSpec, VocabOptionSetsTheVocabularyWhichMustHoldTheDatasIds) {
  EXPECT_EQ(kiln::gpt_config("gpt:2-2-16-8").vocabulary, 0) << "the data's";
  EXPECT_EQ(kiln::gpt_config("gpt:2-2-16-8", 11).vocabulary, 11);
  const kiln::GptConfig c = kiln::gpt_config("gpt:2-2-16-8:vocab=50257", 300);
  EXPECT_EQ(c.vocabulary, 50257);
  EXPECT_EQ(c.context, 8);
  EXPECT_FALSE(c.pad_vocabulary);
  EXPECT_EQ(kiln::gpt_config("gpt2", 256).vocabulary, 50257);
  const std::string too_few = error_message([] { kiln::gpt_config("gpt:2-2-16-8:vocab=10", 11); });
  EXPECT_NE(too_few.find("vocabulary of 10"), std::string::npos) << too_few;
  EXPECT_NE(too_few.find("vocab=11"), std::string::npos) << too_few;
  for (const char* bad : {"gpt:2-2-16-8:vocab=0", "gpt:2-2-16-8:vocab=x", "gpt:2-2-16-8:size=4",
                          "gpt:2-2-16-8:vocab=3000000000"})
    EXPECT_THROW(kiln::gpt_config(bad), kiln::Error) << bad;
  EXPECT_NE(error_message([] { kiln::gpt_config("gpt:2-2-16-8:size=4"); }).find(":vocab=N"),
            std::string::npos);
}

TEST(GptSpec, WindowsMayBeShorterThanTheContextButNotLonger) {
  kiln::Generator gen(1);
  const kiln::Model m = kiln::build_model("gpt:2-2-16-8:vocab=20", Shape{5}, 11, gen);
  EXPECT_EQ(m.net->output_shape(Shape{3, 5}), (Shape{3, 5, 20}));
  EXPECT_THROW(kiln::build_model("gpt:2-2-16-8", Shape{9}, 11, gen), kiln::Error);
}

TEST(GptPaddedVocabulary, PaddedRowsAreZeroAreNeverALogitAndStayZeroThroughTraining) {
  kiln::Generator gen(3);
  kiln::GptConfig config;
  config.layers = 1, config.heads = 2, config.width = 8, config.context = 6;
  config.vocabulary = 11, config.pad_vocabulary = true;
  kiln::Gpt model(config, gen);
  const Tensor& wte = model.wte().weight().value;
  ASSERT_EQ(wte.shape(), (Shape{128, 8}));
  EXPECT_TRUE(all_zero(wte.slice(11, 128)));
  EXPECT_FALSE(all_zero(wte.slice(0, 11)));
  EXPECT_NE(model.describe().find("vocabulary 11 padded to 128"), std::string::npos);
  const Tensor x =
      Tensor::from_vector(std::vector<float>{1, 4, 10, 0, 7, 3, 9, 2, 2, 5, 6, 8}, {2, 6});
  const std::vector<std::int32_t> next = {4, 10, 0, 7, 3, 1, 2, 2, 5, 6, 8, 9};
  kiln::AdamOptions adamw;
  adamw.weight_decay = 0.1f, adamw.decoupled = true;
  kiln::Adam adam(model.parameters(), 1e-2f, adamw);
  kiln::CrossEntropyLoss loss;
  for (int step = 0; step < 3; ++step) {
    model.zero_grad();
    const Tensor& logits = model.forward(x);
    ASSERT_EQ(logits.shape(), (Shape{2, 6, 11})) << "one logit per real token";
    loss.forward(logits.view({12, 11}), Tensor::from_vector(next, {12}));
    model.backward(loss.backward().view({2, 6, 11}));
    EXPECT_TRUE(all_zero(model.wte().weight().grad.slice(11, 128)));
    adam.step();
  }
  EXPECT_TRUE(all_zero(wte.slice(11, 128))) << "AdamW's decay and a zero gradient leave zero";
}
