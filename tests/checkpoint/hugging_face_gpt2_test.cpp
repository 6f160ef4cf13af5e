// Hugging Face GPT-2 weights into kiln's GPT (checkpoint/hugging_face_gpt2.h) against the logits
// transformers' GPT2LMHeadModel computed for the same file (tests/training/fixtures/
// hugging-face-gpt2, made by scripts/hf-gpt2-fixture.py): as save_pretrained writes it, with
// GPT2Model's bare names and mask buffers, into a padded vocabulary, and an untied head refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <memory>

#include <unistd.h>

#include "kiln/checkpoint/checkpoint.h"
#include "kiln/core/error.h"
#include "kiln/core/ops.h"
#include "kiln/io/safetensors.h"
#include "kiln/models/gpt.h"
#include "tests/support/tensor_testing.h"

using kiln::Tensor;

namespace {

const std::string kFixture = std::string(KILN_TEST_FIXTURES) + "/hugging-face-gpt2";

std::unique_ptr<kiln::Gpt> fixture_shaped_gpt(bool pad_vocabulary) {
  kiln::Generator gen(5);
  kiln::GptConfig config;
  config.layers = 2, config.heads = 2, config.width = 32, config.context = 16;
  config.vocabulary = 61, config.pad_vocabulary = pad_vocabulary;
  return std::make_unique<kiln::Gpt>(config, gen);
}

struct Expected {
  Tensor prompt;  // (12) ids as float32, as the model takes them
  std::vector<float> logits;
};

Expected expected() {
  const kiln::SafetensorsFile file = kiln::load_safetensors(kFixture + "/expected.safetensors");
  const std::vector<std::int32_t> ids = file.tensors.at("prompt").to_vector<std::int32_t>();
  const std::vector<float> as_floats(ids.begin(), ids.end());
  return {Tensor::from_vector(as_floats, {1, static_cast<std::int64_t>(ids.size())}),
          file.tensors.at("logits").to_vector<float>()};
}

// The fixture's tensors rewritten by `change` into a file of this test's own.
std::string rewritten(const std::function<void(std::map<std::string, Tensor>&)>& change) {
  std::map<std::string, Tensor> tensors =
      kiln::load_safetensors(kFixture + "/model.safetensors").tensors;
  change(tensors);
  const std::string path =
      ::testing::TempDir() + "kiln_hf_gpt2_" + std::to_string(::getpid()) + ".safetensors";
  kiln::save_safetensors(path, {tensors.begin(), tensors.end()}, {{"format", "pt"}});
  return path;
}

void expect_fixture_logits(kiln::Gpt& model) {
  const Expected e = expected();
  const Tensor logits = model.predict(e.prompt);
  ASSERT_EQ(logits.numel(), static_cast<std::int64_t>(e.logits.size()));
  EXPECT_TRUE(kiln::testing::all_close(logits.to_vector<float>(), e.logits, 0.0f, 1e-5f));
}

}  // namespace

TEST(HuggingFaceGpt2, LogitsMatchTransformersOnTheFileSavePretrainedWrote) {
  auto model = fixture_shaped_gpt(false);
  kiln::load_weights(kFixture + "/model.safetensors", *model);
  expect_fixture_logits(*model);
}

TEST(HuggingFaceGpt2, Gpt2ModelsBareNamesMaskBuffersAndATiedHeadLoadAlike) {
  const std::string path = rewritten([](std::map<std::string, Tensor>& tensors) {
    std::map<std::string, Tensor> bare;
    for (auto& [name, t] : tensors) bare[name.substr(std::string("transformer.").size())] = t;
    for (const char* mask : {"h.0.attn.bias", "h.1.attn.bias", "h.1.attn.masked_bias"}) {
      Tensor buffer = Tensor::empty({1, 1, 16, 16});
      kiln::fill(buffer, 1.0f);
      bare[mask] = buffer;
    }
    bare["lm_head.weight"] = bare.at("wte.weight");
    tensors = bare;
  });
  auto model = fixture_shaped_gpt(false);
  kiln::load_weights(path, *model);
  std::filesystem::remove(path);
  expect_fixture_logits(*model);
}

TEST(HuggingFaceGpt2, LoadsIntoAPaddedVocabularyWithThePaddedRowsZero) {
  auto model = fixture_shaped_gpt(true);
  kiln::load_weights(kFixture + "/model.safetensors", *model);
  expect_fixture_logits(*model);
  const std::vector<float> padded = model->wte().weight().value.slice(61, 128).to_vector<float>();
  EXPECT_TRUE(std::all_of(padded.begin(), padded.end(), [](float v) { return v == 0.0f; }));
}

TEST(HuggingFaceGpt2, AnUntiedHeadIsRefusedNamingTheFile) {
  const std::string path = rewritten([](std::map<std::string, Tensor>& tensors) {
    Tensor head = Tensor::empty(tensors.at("transformer.wte.weight").shape());
    kiln::fill(head, 0.5f);
    tensors["lm_head.weight"] = head;
  });
  auto model = fixture_shaped_gpt(false);
  try {
    kiln::load_weights(path, *model);
    ADD_FAILURE() << "an untied head loaded";
  } catch (const kiln::Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find("lm_head.weight"), std::string::npos) << message;
  }
  std::filesystem::remove(path);
}
