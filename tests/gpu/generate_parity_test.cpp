// Sampling on a GPU: a random tiny GPT (2 layers, 2 heads, width 16, context 8, vocabulary 11,
// weights N(0, 0.3)) built twice from one seed, one copy on cuda:0. The cached step's and the
// prefill's logits on the GPU against the GPU's full forward and steps and against the CPU's, and
// greedy generation with and without the cache on the GPU against the CPU's tokens.
#include <gtest/gtest.h>

#include "kiln/models/generate.h"
#include "kiln/models/gpt_decoder.h"
#include "tests/gpu/gpu_parity.h"

namespace kiln {
namespace {

using testing::all_close;
using testing::kGpu;
using testing::kReductionRtol;

constexpr std::int64_t kContext = 8, kVocabulary = 11;

std::unique_ptr<Gpt> random_gpt(Device device) {
  Generator gen(11);
  GptConfig config;
  config.layers = 2, config.heads = 2, config.width = 16, config.context = kContext;
  config.vocabulary = kVocabulary;
  auto model = std::make_unique<Gpt>(config, gen);
  for (Parameter* p : model->parameters()) normal_(p->value, 0.0f, 0.3f, gen);
  model->to(device);
  return model;
}

TEST(GenerateOnGpu, CachedStepsMatchTheFullForwardOnTheGpuAndTheCpusSteps) {
  KILN_REQUIRE_GPU();
  auto gpu = random_gpt(kGpu);
  auto cpu = random_gpt(Device::cpu());
  GptDecoder on_gpu(*gpu), on_cpu(*cpu);
  const std::vector<std::int32_t> tokens = {5, 0, 10, 7, 7, 2, 9, 1};
  std::vector<float> ids;
  for (const std::int32_t token : tokens) {
    ids.push_back(static_cast<float>(token));
    const auto t = static_cast<std::int64_t>(ids.size());
    const Tensor& logits = on_gpu.step(token);
    EXPECT_EQ(logits.device(), kGpu);
    const Tensor full = gpu->predict(Tensor::from_vector(ids, {1, t}, kGpu));
    EXPECT_TRUE(all_close(logits.to_vector<float>(),
                          full.view({t, kVocabulary}).slice(t - 1, t).to_vector<float>(),
                          kReductionRtol, 1e-5f))
        << "GPU cached against GPU full forward after " << t << " tokens";
    EXPECT_TRUE(all_close(logits.to_vector<float>(), on_cpu.step(token).to_vector<float>(),
                          kReductionRtol, 1e-5f))
        << "GPU against CPU after " << t << " tokens";
  }
}

TEST(GenerateOnGpu, PrefillMatchesTheCpusPrefillAndTheGpusSteps) {
  KILN_REQUIRE_GPU();
  auto gpu = random_gpt(kGpu);
  auto cpu = random_gpt(Device::cpu());
  const std::vector<std::int32_t> prompt = {5, 0, 10, 7, 7, 2};
  GptDecoder prefilled(*gpu), stepped(*gpu), on_cpu(*cpu);
  const std::vector<float> at_once = prefilled.prefill(prompt).to_vector<float>();
  std::vector<float> by_steps;
  for (const std::int32_t token : prompt) by_steps = stepped.step(token).to_vector<float>();
  EXPECT_TRUE(all_close(at_once, by_steps, kReductionRtol, 1e-5f)) << "GPU prefill against steps";
  EXPECT_TRUE(all_close(at_once, on_cpu.prefill(prompt).to_vector<float>(), kReductionRtol, 1e-5f))
      << "GPU prefill against the CPU's";
  EXPECT_TRUE(all_close(prefilled.step(9).to_vector<float>(), stepped.step(9).to_vector<float>(),
                        kReductionRtol, 1e-5f))
      << "the step after the prefill";
}

TEST(GenerateOnGpu, GreedyTokensAreTheCpusWithAndWithoutTheCache) {
  KILN_REQUIRE_GPU();
  auto gpu = random_gpt(kGpu);
  auto cpu = random_gpt(Device::cpu());
  GenerateOptions options;
  options.tokens = 12;  // past the context
  options.temperature = 0.0f;
  const std::vector<std::int32_t> prompt = {3, 1, 4};
  const auto expected = generate(*cpu, prompt, options);
  EXPECT_EQ(generate(*gpu, prompt, options), expected);
  options.kv_cache = false;
  EXPECT_EQ(generate(*gpu, prompt, options), expected);
}

}  // namespace
}  // namespace kiln
