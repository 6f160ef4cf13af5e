// tiny_gpt: nanoGPT's "baby GPT" (4 layers, 4 heads, width 128, context 64) trained byte by byte
// on the fortunes of Debian's `fortunes` package (or a text file given), with nanoGPT's recipe for
// it; prints the loss curve and a sample of generated text. Exits 1 unless the validation loss
// fell to under 0.8 of the untrained model's and the sample holds the tokens asked for.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "corpus.h"

namespace {

struct Options {
  std::int64_t steps = 2000;
  std::int64_t eval_interval = 250;  // nanoGPT's shakespeare_char
  std::int64_t max_bytes = 0;        // 0: all of the text
  std::int64_t sample_tokens = 300;
  std::uint64_t seed = 1;
  std::string path;  // empty: the fortunes
};

//   tiny_gpt [--steps N] [--eval-interval N] [--max-bytes N] [--sample-tokens N] [--seed S]
//            [TEXT_FILE]
Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto number = [&]() -> std::int64_t {
      if (i + 1 >= argc) throw std::runtime_error(arg + " needs a number");
      const std::string value = argv[++i];
      std::size_t used = 0;
      const long long n = std::stoll(value, &used);
      if (used != value.size() || n < 0)
        throw std::runtime_error(arg + " " + value + ": expected a whole number >= 0");
      return n;
    };
    if (arg == "--steps")
      o.steps = number();
    else if (arg == "--eval-interval")
      o.eval_interval = number();
    else if (arg == "--max-bytes")
      o.max_bytes = number();
    else if (arg == "--sample-tokens")
      o.sample_tokens = number();
    else if (arg == "--seed")
      o.seed = static_cast<std::uint64_t>(number());
    else if (arg.rfind("--", 0) == 0)
      throw std::runtime_error("unknown option " + arg);
    else
      o.path = arg;
  }
  if (o.steps < 1) throw std::runtime_error("--steps must be at least 1");
  return o;
}

// nanoGPT's get_lr: lr * (it + 1) / (warmup + 1) for it < warmup, then cosine to lr / 10.
std::unique_ptr<kiln::LrSchedule> nanogpt_schedule(float lr, std::int64_t steps) {
  const std::int64_t warmup = steps / 20;  // 100 of 2000
  auto decay = kiln::cosine_lr(lr, steps - warmup, lr / 10.0f);
  if (warmup == 0) return decay;
  return kiln::warmup_lr(warmup, 1.0f / static_cast<float>(warmup + 1), std::move(decay));
}

void print_point(std::int64_t step, double train_loss, double val_loss) {
  if (std::isnan(train_loss))
    std::printf("%6lld  %10s  %8.4f\n", static_cast<long long>(step), "-", val_loss);
  else
    std::printf("%6lld  %10.4f  %8.4f\n", static_cast<long long>(step), train_loss, val_loss);
  std::fflush(stdout);
}

// The model's continuation of a newline, as text (the tokens are bytes). Throws when generate()
// returns other than the prompt and `tokens` new bytes.
std::string sample(kiln::Gpt& model, std::int64_t tokens, std::uint64_t seed) {
  const std::vector<std::int32_t> prompt{'\n'};
  const std::vector<std::int32_t> ids = kiln::generate(
      model, prompt, {.tokens = tokens, .temperature = 0.8f, .top_k = 200, .seed = seed});
  if (static_cast<std::int64_t>(ids.size()) != 1 + tokens || ids.front() != '\n')
    throw std::runtime_error("generate() returned " + std::to_string(ids.size()) +
                             " tokens, expected the prompt and " + std::to_string(tokens));
  std::string text;
  for (std::size_t i = 1; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] > 255)
      throw std::runtime_error("generate() returned token " + std::to_string(ids[i]) +
                               ", not a byte");
    text += static_cast<char>(ids[i]);
  }
  return text;
}

}  // namespace

// nanoGPT's recipe: batch 12, AdamW at 1e-3 (betas 0.9, 0.99, weight decay 0.1 on the matrices),
// gradients clipped to a global norm of 1, a linear warm-up over the first 5 % of the steps, then
// cosine decay to 1e-4; 2000 steps by default. The last 10 % of the text validates. Prints the
// loss curve's points (step, train loss, validation loss), then a sample (kiln::generate with
// nanoGPT's sample.py settings: temperature 0.8, top-k 200, from a newline).
int main(int argc, char** argv) {
  kiln::prefer_passive_openmp_waiting(argv);  // first: spinning OpenMP threads slow a shared CPU
  try {
    const Options o = parse(argc, argv);
    std::string text = o.path.empty() ? tiny_gpt::fortune_text() : tiny_gpt::read_text(o.path);
    if (o.max_bytes > 0 && static_cast<std::int64_t>(text.size()) > o.max_bytes)
      text.resize(static_cast<std::size_t>(o.max_bytes));
    const tiny_gpt::TextFile file(text);

    // Bytes as tokens (vocabulary 256); the last 10 % validates, in non-overlapping windows.
    auto tokens = std::make_shared<const kiln::TokenSequence>(file.path().string());
    const kiln::GptConfig config{.layers = 4,
                                 .heads = 4,
                                 .width = 128,
                                 .context = 64,
                                 .vocabulary = tokens->vocabulary().size};
    const std::int64_t split = tokens->size() - tokens->size() / 10;
    auto train_windows = std::make_shared<kiln::TokenWindowDataset>(
        tokens, kiln::TokenWindowOptions{.context = config.context, .end = split, .seed = o.seed});
    auto val_windows = std::make_shared<kiln::TokenWindowDataset>(
        tokens,
        kiln::TokenWindowOptions{
            .context = config.context, .begin = split, .order = kiln::WindowOrder::strided});
    kiln::DataLoader train(train_windows, {.batch_size = 12, .seed = o.seed});
    // Evaluations read the same 20 batches each time (nanoGPT's eval_iters on a CPU).
    kiln::DataLoader val(val_windows, {.batch_size = 12, .shuffle = true, .seed = o.seed});
    const std::int64_t eval_iters = 20;

    kiln::Generator gen(o.seed);
    kiln::Gpt model(config, gen);
    // Weight decay on the linear layers' matrices only (models/gpt_weight_decay.h).
    kiln::AdamW optimizer(
        model.parameters(), 1e-3f, 0.1f,
        {.beta1 = 0.9f, .beta2 = 0.99f, .decays = kiln::gpt_weight_decay_groups(model)});
    kiln::SequenceCrossEntropyLoss loss;
    kiln::TrainerOptions trainer_options;
    trainer_options.steps = o.steps;
    trainer_options.eval_interval = o.eval_interval;
    trainer_options.eval_iters = eval_iters;
    trainer_options.clip_grad_norm = 1.0f;  // nanoGPT's grad_clip
    trainer_options.vocabulary = tokens->vocabulary();
    kiln::Trainer trainer(model, optimizer, loss, trainer_options);
    trainer.set_schedule(nanogpt_schedule(1e-3f, o.steps));

    std::int64_t parameters = 0;
    for (const kiln::Parameter* p : model.parameters()) parameters += p->value.numel();
    std::printf(
        "tiny_gpt: gpt:4-4-128-64 (%lld parameters), bytes of %s: %lld to train, %lld to "
        "validate; %lld steps of batch 12\n",
        static_cast<long long>(parameters), o.path.empty() ? "the fortunes" : o.path.c_str(),
        static_cast<long long>(split), static_cast<long long>(tokens->size() - split),
        static_cast<long long>(o.steps));
    std::printf("%6s  %10s  %8s\n", "step", "train loss", "val loss");

    const auto start = std::chrono::steady_clock::now();
    const double untrained = trainer.evaluate(val, eval_iters).mean_loss;
    print_point(0, NAN, untrained);
    trainer.on_epoch_end([](kiln::Trainer&, const kiln::EpochReport& report) {
      print_point(report.step, report.train_loss, report.test_loss);  // train: the interval's mean
    });
    const kiln::FitResult result = trainer.fit_steps(train, &val);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double final_loss = result.epochs.back().test_loss;
    std::printf("tiny_gpt: validation loss %.4f after %lld steps (untrained %.4f), %.1f s\n",
                final_loss, static_cast<long long>(result.epochs.back().step), untrained, seconds);

    if (!(final_loss < 0.8 * untrained)) {
      std::fprintf(stderr, "tiny_gpt: the validation loss did not fall enough: %.4f -> %.4f\n",
                   untrained, final_loss);
      return 1;
    }
    if (o.sample_tokens > 0) {
      const std::string text = sample(model, o.sample_tokens, o.seed);
      std::printf("tiny_gpt: a sample of %lld bytes (temperature 0.8, top-k 200):\n",
                  static_cast<long long>(o.sample_tokens));
      std::fwrite(text.data(), 1, text.size(), stdout);  // the bytes as drawn, a NUL included
      std::printf("\n");
    }
    return 0;
  } catch (const std::exception& e) {  // kiln::Error among them
    std::cerr << "tiny_gpt: " << e.what() << "\n";
    return 1;
  }
}
