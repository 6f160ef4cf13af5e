// kiln::Trainer used as a library: a model of the test's own (a Module with its own forward and
// backward), an in-memory data set and a loss, trained by fit, by fit_epoch and by a loop of
// step() calls; hooks, early stopping, evaluation, save and resume.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "kiln/core/ops.h"
#include "kiln/data/data_loader.h"
#include "kiln/layers/activations.h"
#include "kiln/layers/cross_entropy_loss.h"
#include "kiln/layers/dropout.h"
#include "kiln/layers/linear.h"
#include "kiln/models/sequential.h"
#include "kiln/optim/sgd.h"
#include "kiln/training/trainer.h"
#include "tests/support/blobs_dataset.h"
#include "tests/support/error_testing.h"
#include "tests/support/train_testing.h"

namespace {

using kiln::testing::BlobsDataset;

// A model written by a user: two Linear layers around a ReLU, chained by its own forward and
// backward (not a Sequential).
class TwoLayerNet : public kiln::Module {
 public:
  explicit TwoLayerNet(kiln::Generator& gen)
      : hidden_(std::make_shared<kiln::Linear>(8, 16, gen)),
        out_(std::make_shared<kiln::Linear>(16, 3, gen)), relu_(std::make_shared<kiln::ReLU>()) {
    register_module("hidden", hidden_);
    register_module("relu", relu_);
    register_module("out", out_);
  }
  std::string describe() const override { return "TwoLayerNet"; }
  kiln::Shape output_shape(const kiln::Shape& input) const override {
    return out_->output_shape(hidden_->output_shape(input));
  }

 protected:
  kiln::Tensor forward_impl(const kiln::Tensor& x) override {
    return out_->forward(relu_->forward(hidden_->forward(x)));
  }
  kiln::Tensor backward_impl(const kiln::Tensor& dy) override {
    return hidden_->backward(relu_->backward(out_->backward(dy)));
  }

 private:
  std::shared_ptr<kiln::Linear> hidden_, out_;
  std::shared_ptr<kiln::ReLU> relu_;
};

// Model, optimizer, loss and loaders of one run, all seeded the same way.
struct OwnRun {
  kiln::Generator gen{3};
  TwoLayerNet net{gen};
  kiln::Sgd optimizer{net.parameters(), 0.1f, kiln::SgdOptions{.momentum = 0.9f}};
  kiln::CrossEntropyLoss loss;
  kiln::DataLoader train{std::make_shared<BlobsDataset>(600), loader_options(true)};
  kiln::DataLoader test{std::make_shared<BlobsDataset>(150), loader_options(false)};

  static kiln::DataLoaderOptions loader_options(bool shuffle) {
    kiln::DataLoaderOptions o;
    o.batch_size = 50;
    o.shuffle = shuffle;
    o.seed = 5;
    return o;
  }
};

using kiln::testing::error_message;

std::vector<float> weights(kiln::Module& m) {
  std::vector<float> all;
  for (const kiln::Parameter* p : m.parameters()) {
    const auto v = p->value.to_vector<float>();
    all.insert(all.end(), v.begin(), v.end());
  }
  return all;
}

}  // namespace

TEST(TrainerApi, TrainsAModelOfItsOwnAndReportsStagesAndDiagnosis) {
  OwnRun s;
  std::ostringstream out;
  kiln::Trainer trainer(s.net, s.optimizer, s.loss, {.out = &out, .progress = false});
  const kiln::FitResult result = trainer.fit(s.train, 3, &s.test);
  ASSERT_EQ(result.epochs.size(), 3u);
  EXPECT_LT(result.epochs.back().train_loss, 0.5 * result.epochs.front().train_loss);
  EXPECT_GT(result.epochs.back().test_accuracy, 0.95);
  EXPECT_EQ(result.epochs.back().samples, 600);
  EXPECT_GT(result.epochs.back().stages[kiln::Stage::forward], 0.0);
  EXPECT_FALSE(result.diagnosis.items.empty());
  EXPECT_EQ(trainer.state().epoch, 3);
  EXPECT_EQ(trainer.state().global_step, 36);
  EXPECT_NE(out.str().find("epoch 3/3"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("diagnosis:\n  "), std::string::npos) << out.str();
}

TEST(TrainerApi, ALoopOfStepsEqualsFitBitForBit) {
  OwnRun a, b;
  kiln::Trainer fitted(a.net, a.optimizer, a.loss);
  fitted.fit(a.train, 2);
  kiln::Trainer stepped(b.net, b.optimizer, b.loss);
  for (int epoch = 0; epoch < 2; ++epoch)
    for (const kiln::Batch& batch : b.train) EXPECT_TRUE(std::isfinite(stepped.step(batch).item()));
  EXPECT_EQ(weights(a.net), weights(b.net));
  EXPECT_EQ(stepped.state().global_step, 24);
}

TEST(TrainerApi, AHookSeesEveryEpochAndCanStopEarly) {
  OwnRun s;
  kiln::Trainer trainer(s.net, s.optimizer, s.loss);
  std::vector<std::int64_t> seen;
  trainer.on_epoch_end([&](kiln::Trainer& t, const kiln::EpochReport& report) {
    seen.push_back(report.epoch);
    if (report.test_accuracy > 0.9) t.request_stop();
  });
  const kiln::FitResult result = trainer.fit(s.train, 20, &s.test);
  ASSERT_FALSE(seen.empty());
  EXPECT_TRUE(result.stopped_early);
  EXPECT_FALSE(result.interrupted);
  EXPECT_LT(seen.size(), 20u);
  EXPECT_EQ(seen.size(), result.epochs.size());
  EXPECT_EQ(seen.back(), trainer.state().epoch);
}

TEST(TrainerApi, EvaluateRunsInEvaluationModeAndRestoresTraining) {
  OwnRun s;
  kiln::Trainer trainer(s.net, s.optimizer, s.loss);
  trainer.fit(s.train, 2);
  EXPECT_TRUE(s.net.is_training());
  const kiln::RunningMetrics::Values v = trainer.evaluate(s.test);
  EXPECT_TRUE(s.net.is_training());
  EXPECT_EQ(v.samples, 150);
  EXPECT_GT(v.accuracy, 0.9);
}

TEST(TrainerApi, ResumingInANewProcessContinuesAsIfUninterrupted) {
  const std::string straight_dir = kiln::testing::fresh_checkpoint_dir("api_straight");
  const std::string split_dir = kiln::testing::fresh_checkpoint_dir("api_split");
  OwnRun straight;
  kiln::Trainer(straight.net, straight.optimizer, straight.loss, {.checkpoint_dir = straight_dir})
      .fit(straight.train, 4);
  {
    OwnRun first;
    kiln::Trainer trainer(first.net, first.optimizer, first.loss, {.checkpoint_dir = split_dir});
    EXPECT_FALSE(trainer.resume());  // an empty folder: nothing to resume
    trainer.fit(first.train, 2);
  }
  OwnRun second;  // fresh weights: everything must come from the checkpoint
  kiln::Trainer trainer(second.net, second.optimizer, second.loss, {.checkpoint_dir = split_dir});
  ASSERT_TRUE(trainer.resume());
  EXPECT_EQ(trainer.state().epoch, 2);
  const kiln::FitResult rest = trainer.fit(second.train, 4);
  EXPECT_EQ(rest.epochs.size(), 2u);
  EXPECT_EQ(weights(straight.net), weights(second.net));
}

TEST(TrainerApi, AResumedRunDrawsTheDropoutMasksAnUninterruptedOneWould) {
  // Nested, so the generator is found at any depth ("layers.1.layers.1.mask").
  auto build = [](kiln::Generator& gen) {
    auto inner = std::make_shared<kiln::Sequential>();
    inner->emplace<kiln::ReLU>().emplace<kiln::Dropout>(0.3f, 17);
    auto net = std::make_shared<kiln::Sequential>();
    net->emplace<kiln::Linear>(8, 32, gen).add(inner).emplace<kiln::Linear>(32, 3, gen);
    return net;
  };
  auto run = [&](const std::string& dir, std::int64_t first, std::int64_t total) {
    kiln::DataLoader train(std::make_shared<BlobsDataset>(300), OwnRun::loader_options(true));
    std::shared_ptr<kiln::Sequential> net;
    for (std::int64_t epochs :
         {first, total}) {  // a second process resumes where the first stopped
      kiln::Generator gen(epochs == first ? 3 : 4);
      net = build(gen);
      kiln::Sgd optimizer(net->parameters(), 0.1f, {.momentum = 0.9f});
      kiln::CrossEntropyLoss loss;
      kiln::Trainer trainer(*net, optimizer, loss, {.checkpoint_dir = dir});
      trainer.resume();
      trainer.fit(train, epochs);
      if (first == total) break;
    }
    EXPECT_EQ(net->generators().at(0).first, "layers.1.layers.1.mask");
    return weights(*net);
  };
  const auto straight = run(kiln::testing::fresh_checkpoint_dir("api_dropout_straight"), 4, 4);
  const auto resumed = run(kiln::testing::fresh_checkpoint_dir("api_dropout_resumed"), 2, 4);
  EXPECT_EQ(straight, resumed);
}

TEST(TrainerApi, RefusesACheckpointMadeWithOtherSettings) {
  const std::string dir = kiln::testing::fresh_checkpoint_dir("api_settings");
  {
    OwnRun s;
    kiln::Trainer(s.net, s.optimizer, s.loss, {.checkpoint_dir = dir, .run = {.lr = 0.1f}})
        .fit(s.train, 1);
  }
  OwnRun s;
  kiln::Trainer trainer(s.net, s.optimizer, s.loss, {.checkpoint_dir = dir, .run = {.lr = 0.2f}});
  EXPECT_THAT(error_message([&] { trainer.resume(); }),
              ::testing::HasSubstr("was made with TrainerOptions::run.lr 0.1 (this run: 0.2)"));
}

TEST(TrainerApi, RefusesWhatCannotWorkBeforeTraining) {
  OwnRun s;
  EXPECT_THAT(
      error_message([&] { kiln::Trainer(s.net, s.optimizer, s.loss, {.cuda_graph = true}); }),
      ::testing::HasSubstr("TrainerOptions::cuda_graph records GPU work"));
  EXPECT_THAT(error_message([&] {
                kiln::Trainer(s.net, s.optimizer, s.loss,
                              {.precision = kiln::MatmulPrecision::tf32});
              }),
              ::testing::HasSubstr("tf32 is a GPU tensor-core format"));
  EXPECT_THAT(error_message([&] {
                kiln::Trainer(s.net, s.optimizer, s.loss,
                              {.log_json = "/nonexistent/dir/log.json"});
              }),
              ::testing::HasSubstr(
                  "cannot open TrainerOptions::log_json file '/nonexistent/dir/log.json'"));
  kiln::Trainer trainer(s.net, s.optimizer, s.loss);
  EXPECT_THAT(error_message([&] { trainer.save(); }),
              ::testing::HasSubstr("needs a checkpoint folder"));
  EXPECT_THAT(error_message([&] { trainer.fit(s.train, 0); }),
              ::testing::HasSubstr("fit's epochs must be at least 1"));
}
