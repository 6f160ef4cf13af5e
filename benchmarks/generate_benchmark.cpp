// Generation speed with and without the key-value cache (models/generate.h): a random
// gpt:6-6-384-256 (nanoGPT's GPU recipe's shape; vocabulary 65, Shakespeare's characters) draws
// 200 tokens after an 8-token prompt, one generate() call per iteration; the counter is new
// tokens per second (the sequence stays within the context, where the cache serves every token);
// and a long prompt prefilled against stepped. docs/performance.md records the figures.
#include <benchmark/benchmark.h>

#include <kiln/kiln.h>

namespace {

constexpr std::int64_t kNewTokens = 200;

kiln::Gpt& random_gpt() {
  static kiln::Generator gen(1);
  static kiln::Gpt model(
      kiln::GptConfig{.layers = 6, .heads = 6, .width = 384, .context = 256, .vocabulary = 65},
      gen);
  return model;
}

void BM_Generate200TokensAtContext256(benchmark::State& state) {
  kiln::Gpt& model = random_gpt();
  const std::vector<std::int32_t> prompt = {18, 47, 56, 57, 58, 1, 15, 47};
  kiln::GenerateOptions options;
  options.tokens = kNewTokens;
  options.kv_cache = state.range(0) != 0;
  options.seed = 3;
  for (auto _ : state) benchmark::DoNotOptimize(kiln::generate(model, prompt, options));
  state.SetLabel(options.kv_cache ? "key-value cache" : "no cache");
  state.counters["tokens_per_second"] = benchmark::Counter(
      static_cast<double>(kNewTokens), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Generate200TokensAtContext256)
    ->ArgName("kv_cache")
    ->Arg(1)
    ->Arg(0)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true)
    ->UseRealTime();

// A 200-token prompt into an empty cache: prefilled in one pass (GptDecoder::prefill, what
// generate() runs) or stepped one token at a time (what it ran before). The counter is prompt
// tokens per second.
void BM_Prompt200TokensIntoTheCache(benchmark::State& state) {
  kiln::Gpt& model = random_gpt();
  std::vector<std::int32_t> prompt(200);
  for (std::size_t i = 0; i < prompt.size(); ++i) prompt[i] = static_cast<std::int32_t>(i * 7 % 65);
  kiln::GptDecoder decoder(model);
  const bool at_once = state.range(0) != 0;
  for (auto _ : state) {
    decoder.reset();
    if (at_once)
      benchmark::DoNotOptimize(decoder.prefill(prompt).to_vector<float>());
    else
      for (const std::int32_t token : prompt) benchmark::DoNotOptimize(decoder.step(token));
  }
  state.SetLabel(at_once ? "prefill" : "token by token");
  state.counters["prompt_tokens_per_second"] = benchmark::Counter(
      static_cast<double>(prompt.size()), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Prompt200TokensIntoTheCache)
    ->ArgName("prefill")
    ->Arg(1)
    ->Arg(0)
    ->Unit(benchmark::kMillisecond)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
