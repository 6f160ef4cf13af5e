// kiln-generate: samples text from a GPT that `train --model gpt:... --data tokens:...` wrote
// into a checkpoint folder. The GPT is rebuilt from the spec its run record holds with the
// vocabulary its state.json holds (bytes or characters), its weights loaded; the prompt is
// encoded with that vocabulary, kiln::generate (kiln/models/generate.h) draws the tokens, and the
// prompt and the new text are printed. The speed goes to stderr, so stdout is the text alone.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <string>

#include <kiln/checkpoint/checkpoint.h>
#include <kiln/core/device.h>
#include <kiln/core/error.h>
#include <kiln/core/excerpt.h>
#include <kiln/core/openmp_wait_policy.h>
#include <kiln/data/vocabulary.h>
#include <kiln/models/generate.h>
#include <kiln/spec/model_spec.h>
#include "apps/support/number_flags.h"

namespace {

struct Options {
  std::string checkpoint;
  std::string prompt = "\n";
  std::string device = "cpu";
  bool no_cache = false;
  kiln::GenerateOptions generate;
};

struct TrainedGpt {
  std::unique_ptr<kiln::Gpt> model;
  kiln::Vocabulary vocabulary;
  std::string spec;
};

TrainedGpt load_trained_gpt(const std::string& dir, kiln::Device device) {
  const auto saved = kiln::read_checkpoint(dir);
  KILN_CHECK(saved.has_value(),
             "'{}' holds no checkpoint (train --model gpt:... --data tokens:FILE --checkpoint DIR "
             "writes one)",
             dir);
  const kiln::TrainingState& state = saved->state;
  const std::string spec = state.run.model.empty() ? state.model : state.run.model;
  KILN_CHECK(
      kiln::is_gpt_spec(spec),
      "the checkpoint in '{}' is of the model {}, not a GPT: kiln-generate samples from a "
      "checkpoint of train --model gpt:LAYERS-HEADS-WIDTH-CONTEXT or gpt2",
      dir, spec.empty() ? std::string("built in code (it records no spec)") : kiln::excerpt(spec));
  KILN_CHECK(state.vocabulary.has_value(),
             "the GPT checkpoint in '{}' records no vocabulary (it was not trained on tokens:FILE "
             "data, or by a kiln before vocabularies were recorded): its tokens cannot be turned "
             "into text",
             dir);
  TrainedGpt trained{nullptr, *state.vocabulary, spec};
  const kiln::GptConfig config = kiln::gpt_config(spec, trained.vocabulary.size);
  kiln::Generator gen(0);  // the weights come from the checkpoint
  trained.model = std::make_unique<kiln::Gpt>(config, gen);
  kiln::load_checkpoint_weights(dir, *trained.model);
  trained.model->to(device);
  return trained;
}

// kiln-generate's words for the settings the library names: its flags for GenerateOptions'
// fields, the library's own words for the rest.
class GenerateFlagWords : public kiln::SettingWords {
 public:
  std::string name(kiln::Setting setting) const override {
    switch (setting) {
      case kiln::Setting::generate_tokens: return "--tokens";
      case kiln::Setting::generate_temperature: return "--temperature";
      case kiln::Setting::generate_top_k: return "--top-k";
      default: return SettingWords::name(setting);
    }
  }
};

void run(const Options& o) {
  const kiln::Device device = kiln::Device::parse(o.device);
  TrainedGpt trained = load_trained_gpt(o.checkpoint, device);
  const std::vector<std::int32_t> prompt =
      kiln::encode(trained.vocabulary, o.prompt, "the prompt (--prompt)");
  kiln::GenerateOptions options = o.generate;
  options.kv_cache = !o.no_cache;
  const auto start = std::chrono::steady_clock::now();
  const std::vector<std::int32_t> text = kiln::generate(*trained.model, prompt, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string decoded = kiln::decode(trained.vocabulary, text);
  std::fwrite(decoded.data(), 1, decoded.size(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
  std::fprintf(stderr, "kiln-generate: %lld tokens in %.3f s, %.1f tokens/s (%s, %s, %s)\n",
               static_cast<long long>(options.tokens), seconds,
               seconds > 0 ? static_cast<double>(options.tokens) / seconds : 0.0,
               trained.spec.c_str(), options.kv_cache ? "key-value cache" : "no cache",
               device.str().c_str());
}

}  // namespace

int main(int argc, char** argv) {
  kiln::prefer_passive_openmp_waiting(argv);  // core/openmp_wait_policy.h: why
  Options o;
  CLI::App app{"Sample text from a GPT checkpoint of train --model gpt:... --data tokens:FILE"};
  app.add_option("--checkpoint", o.checkpoint, "checkpoint folder written by train --checkpoint")
      ->required();
  app.add_option("--prompt", o.prompt, "the text to continue (default: a newline)");
  kiln::add_number_flag(app, "--tokens", o.generate.tokens, "new tokens to draw", {.least = 0})
      ->capture_default_str();
  kiln::add_number_flag(
      app, "--temperature", o.generate.temperature,
      "divides the logits: below 1 surer, above 1 more varied; 0 picks the most likely",
      {.least = 0, .note = "0: the most likely token"})
      ->capture_default_str();
  kiln::add_number_flag(app, "--top-k", o.generate.top_k,
                        "draw among the K likeliest tokens only (0: all)",
                        {.least = 0, .note = "0: all"})
      ->capture_default_str();
  kiln::add_number_flag(app, "--seed", o.generate.seed, "seed of the draws")->capture_default_str();
  app.add_flag("--no-cache", o.no_cache,
               "run the full forward for every token instead of the key-value cache");
  app.add_option("--device", o.device, "cpu or gpu (gpu:N)")->capture_default_str();
  if (const auto status = kiln::parse_command_line(app, argc, argv, "kiln-generate"))
    return *status;
  try {
    run(o);
    return 0;
  } catch (const kiln::Error& e) {
    std::fprintf(stderr, "kiln-generate: %s\n", e.message(GenerateFlagWords()).c_str());
    return 1;
  } catch (const std::exception& e) {  // std::filesystem's, from the folder
    std::fprintf(stderr, "kiln-generate: %s\n", e.what());
    return 1;
  }
}
