// A run counted in steps (Trainer::fit_steps): evaluations every eval_interval steps on
// eval_iters batches, each a report with loss and perplexity; the loss falls on a repetitive
// text; a resumed run continues at its step as if uninterrupted; the vocabulary is recorded.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "kiln/checkpoint/checkpoint.h"
#include "kiln/data/data_loader.h"
#include "kiln/layers/sequence_cross_entropy_loss.h"
#include "kiln/optim/adam.h"
#include "kiln/spec/data_spec.h"
#include "kiln/training/trainer.h"
#include "tests/data/file_testing.h"
#include "tests/support/train_testing.h"

namespace {

// The smallest sequence model: a table of next-token logits per token, (B, T) ids -> (B, T, V)
// logits (a bigram model). CPU only, written as a user would.
class Bigram : public kiln::Module {
 public:
  explicit Bigram(std::int64_t vocab) : vocab_(vocab) {
    register_parameter("table", kiln::Tensor::zeros(kiln::Shape{vocab, vocab}));
  }
  std::string describe() const override { return "Bigram"; }
  kiln::Shape output_shape(const kiln::Shape& input) const override {
    return kiln::Shape{input[0], input[1], vocab_};
  }

 protected:
  kiln::Tensor forward_impl(const kiln::Tensor& x) override {
    ids_ = x.clone();
    kiln::Tensor y = kiln::Tensor::empty(output_shape(x.shape()));
    const float* table = parameters()[0]->value.data<float>();
    const float* id = ids_.data<float>();
    float* out = y.data<float>();
    for (std::int64_t i = 0; i < x.numel(); ++i)
      for (std::int64_t v = 0; v < vocab_; ++v)
        out[i * vocab_ + v] = table[static_cast<std::int64_t>(id[i]) * vocab_ + v];
    return y;
  }
  kiln::Tensor backward_impl(const kiln::Tensor& dy) override {
    float* grad = parameters()[0]->grad.data<float>();
    const float* id = ids_.data<float>();
    const float* d = dy.data<float>();
    for (std::int64_t i = 0; i < ids_.numel(); ++i)
      for (std::int64_t v = 0; v < vocab_; ++v)
        grad[static_cast<std::int64_t>(id[i]) * vocab_ + v] += d[i * vocab_ + v];
    return kiln::Tensor();
  }

 private:
  std::int64_t vocab_;
  kiln::Tensor ids_;
};

std::string repetitive_text() {
  std::string text;
  for (int i = 0; i < 400; ++i) text += "the cat sat. ";
  return text;
}

struct StepRun {
  kiln::DataSplits data;
  Bigram net;
  kiln::Adam optimizer;
  kiln::SequenceCrossEntropyLoss loss;
  kiln::DataLoader train, test;

  explicit StepRun(const std::string& path)
      : data(kiln::open_data("tokens:" + path + ":chars:context=16", {.seed = 4})),
        net(data.vocabulary->size), optimizer(net.parameters(), 0.1f),
        train(data.train, {.batch_size = 32, .seed = 4}),
        test(data.test, {.batch_size = 8, .shuffle = true, .seed = 4}) {}

  kiln::TrainerOptions options(std::int64_t steps) const {
    return {.steps = steps, .eval_interval = 10, .eval_iters = 2, .vocabulary = data.vocabulary};
  }
};

std::string text_file(const std::string& name) {
  return kiln::testing::write_text(kiln::testing::fresh_folder(name) / "text.txt",
                                   repetitive_text());
}

}  // namespace

TEST(StepRun, EvaluatesEveryIntervalWithLossAndPerplexityAndTheLossFalls) {
  StepRun run(text_file("steps_reports"));
  const std::string log = (kiln::testing::fresh_folder("steps_log") / "log.jsonl").string();
  std::ostringstream out;
  kiln::TrainerOptions o = run.options(25);
  o.out = &out;
  o.progress = false;
  o.log_json = log;
  kiln::Trainer trainer(run.net, run.optimizer, run.loss, o);
  const kiln::FitResult result = trainer.fit_steps(run.train, &run.test);
  ASSERT_EQ(result.epochs.size(), 3u);  // after steps 10, 20 and the last, 25
  EXPECT_EQ(result.epochs[0].step, 10);
  EXPECT_EQ(result.epochs[2].step, 25);
  EXPECT_EQ(result.epochs[2].batches, 5);
  EXPECT_EQ(trainer.state().global_step, 25);
  for (const kiln::EpochReport& r : result.epochs) {
    EXPECT_TRUE(std::isnan(r.test_accuracy));
    EXPECT_TRUE(r.perplexity);
  }
  EXPECT_LT(result.epochs[2].test_loss, result.epochs[0].test_loss);
  EXPECT_LT(result.epochs[2].test_loss,
            0.7 * std::log(static_cast<double>(run.data.vocabulary->size)));
  const std::string printed = out.str();
  EXPECT_NE(printed.find("step 10/25"), std::string::npos) << printed;
  EXPECT_NE(printed.find(" ppl "), std::string::npos) << printed;
  EXPECT_EQ(printed.find(" acc "), std::string::npos) << printed;  // no accuracy column
  std::ifstream lines(log);
  std::string line;
  int count = 0;
  while (std::getline(lines, line)) {
    ++count;
    EXPECT_NE(line.find("\"test_perplexity\""), std::string::npos) << line;
    EXPECT_NE(line.find("\"step\""), std::string::npos) << line;
  }
  EXPECT_EQ(count, 3);
}

TEST(StepRun, AResumedRunContinuesAtItsStepAsIfUninterruptedAndRecordsTheVocabulary) {
  const std::string path = text_file("steps_resume");
  const std::string straight_dir = kiln::testing::fresh_checkpoint_dir("steps_straight");
  const std::string split_dir = kiln::testing::fresh_checkpoint_dir("steps_split");
  StepRun straight(path);
  kiln::TrainerOptions so = straight.options(30);
  so.checkpoint_dir = straight_dir;
  const kiln::FitResult whole = kiln::Trainer(straight.net, straight.optimizer, straight.loss, so)
                                    .fit_steps(straight.train, &straight.test);
  {
    StepRun first(path);
    kiln::TrainerOptions fo = first.options(20);
    fo.checkpoint_dir = split_dir;
    kiln::Trainer(first.net, first.optimizer, first.loss, fo).fit_steps(first.train, &first.test);
  }
  StepRun second(path);
  kiln::TrainerOptions o = second.options(30);
  o.checkpoint_dir = split_dir;
  kiln::Trainer trainer(second.net, second.optimizer, second.loss, o);
  ASSERT_TRUE(trainer.resume());
  EXPECT_EQ(trainer.state().global_step, 20);
  const kiln::FitResult rest = trainer.fit_steps(second.train, &second.test);
  ASSERT_EQ(rest.epochs.size(), 1u);
  EXPECT_EQ(rest.epochs[0].step, 30);
  EXPECT_EQ(rest.epochs[0].test_loss, whole.epochs.back().test_loss);
  EXPECT_EQ(second.net.parameters()[0]->value.to_vector<float>(),
            straight.net.parameters()[0]->value.to_vector<float>());
  const auto saved = kiln::read_checkpoint(split_dir);
  ASSERT_TRUE(saved && saved->state.vocabulary);
  EXPECT_EQ(*saved->state.vocabulary, *second.data.vocabulary);
  EXPECT_EQ(saved->state.vocabulary->kind, kiln::VocabularyKind::chars);
}
