// Observers of a Trainer (training/observer.h): one of the user's own sees every event in order,
// the console reporter and the checkpointer work when a user attaches them, early stopping ends
// a run that stopped improving, and the NaN guard reads the loss when due.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "kiln/checkpoint/checkpoint.h"
#include "kiln/data/data_loader.h"
#include "kiln/data/tensor_dataset.h"
#include "kiln/layers/cross_entropy_loss.h"
#include "kiln/models/presets.h"
#include "kiln/optim/sgd.h"
#include "kiln/training/checkpointer.h"
#include "kiln/training/console_reporter.h"
#include "kiln/training/early_stopping.h"
#include "kiln/training/nan_guard.h"
#include "kiln/training/trainer.h"
#include "tests/support/error_testing.h"
#include "tests/support/train_testing.h"

namespace {

// 40 points of two classes on a line (x < 0: class 0), in batches of 8.
struct LineRun {
  explicit LineRun(float lr) : optimizer(net->parameters(), lr) {}
  static std::shared_ptr<kiln::TensorDataset> points() {
    std::vector<float> x;
    std::vector<std::int32_t> y;
    for (int i = 0; i < 40; ++i) {
      x.push_back(static_cast<float>(i - 20) / 7.0f);
      y.push_back(i < 20 ? 0 : 1);
    }
    return std::make_shared<kiln::TensorDataset>(x, kiln::Shape{1}, y);
  }
  kiln::Generator gen{5};
  std::shared_ptr<kiln::Sequential> net = kiln::mlp({1, 8, 2}, gen);
  kiln::Sgd optimizer;
  kiln::CrossEntropyLoss loss;
  kiln::DataLoader train{points(), {.batch_size = 8, .shuffle = false}};
};

class Recorder : public kiln::TrainingObserver {
 public:
  void on_fit_begin(kiln::Trainer&, std::int64_t epochs) override {
    events += "fit " + std::to_string(epochs) + ";";
  }
  void on_epoch_begin(kiln::Trainer&, std::int64_t epoch) override {
    events += "epoch " + std::to_string(epoch) + ";";
  }
  void on_step_begin(kiln::Trainer&, std::int64_t global_step) override {
    begun.push_back(global_step);
  }
  void on_step_end(kiln::Trainer&, const kiln::StepEnd& s) override {
    steps.push_back(s.epoch * 100 + s.step);
    EXPECT_EQ(s.epoch_steps, 5);
    EXPECT_EQ(s.batch_size, 8);
    EXPECT_TRUE(s.loss.defined());
    ASSERT_NE(s.running, nullptr);
    EXPECT_EQ(s.running->read().samples, 8 * s.step);  // the epoch so far
  }
  void on_epoch_end(kiln::Trainer&, const kiln::EpochReport& r) override {
    epochs.push_back(r.epoch);
    events += "end " + std::to_string(r.epoch) + ";";
  }
  void on_fit_end(kiln::Trainer&, const kiln::FitResult& result) override {
    events += "done " + std::to_string(result.epochs.size()) + ";";
  }
  std::vector<std::int64_t> steps, epochs, begun;
  std::string events;
};

}  // namespace

TEST(TrainerObservers, OneOfTheUsersOwnSeesEveryStepAndEpochInOrder) {
  LineRun run(0.1f);
  kiln::Trainer trainer(*run.net, run.optimizer, run.loss);
  const auto recorder = std::make_shared<Recorder>();
  trainer.add_observer(recorder);
  trainer.fit(run.train, 2);
  EXPECT_EQ(recorder->steps,
            (std::vector<std::int64_t>{101, 102, 103, 104, 105, 201, 202, 203, 204, 205}));
  EXPECT_EQ(recorder->epochs, (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(recorder->begun, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(recorder->events, "fit 2;epoch 1;end 1;epoch 2;end 2;done 2;");
}

// The console lines and the checkpoints are observers like any other: attached by hand to a
// trainer whose options ask for neither, they do what the options would have made them do.
TEST(TrainerObservers, TheConsoleReporterAndTheCheckpointerWorkWhenAUserAttachesThem) {
  LineRun run(0.1f);
  const std::string dir = kiln::testing::fresh_checkpoint_dir("observers_checkpointer");
  std::ostringstream out;
  {
    kiln::Trainer trainer(*run.net, run.optimizer, run.loss);
    trainer.add_observer(std::make_shared<kiln::Checkpointer>(dir, 1, *run.net, run.optimizer));
    trainer.add_observer(
        std::make_shared<kiln::ConsoleReporter>(out, true, kiln::api_setting_words()));
    trainer.fit(run.train, 2);
  }
  const std::string text = out.str();
  EXPECT_NE(text.find("epoch 1/2 "), std::string::npos) << text;
  EXPECT_NE(text.find("epoch 2/2 "), std::string::npos) << text;
  EXPECT_NE(text.find("diagnosis:"), std::string::npos) << text;
  EXPECT_EQ(text.find('\r'), std::string::npos)
      << "a string stream is no terminal: no progress line";
  const auto saved = kiln::read_checkpoint(dir);
  ASSERT_TRUE(saved.has_value());
  EXPECT_EQ(saved->state.epoch, 2);
  EXPECT_EQ(saved->state.global_step, 10);
}

TEST(TrainerObservers, EarlyStoppingEndsARunThatNoLongerImproves) {
  LineRun run(0.0f);  // a learning rate of 0: the loss stays where it starts
  kiln::Trainer trainer(*run.net, run.optimizer, run.loss);
  const auto stopping = std::make_shared<kiln::EarlyStopping>(
      kiln::EarlyStoppingOptions{.patience = 2, .monitor = kiln::EarlyStoppingMonitor::train_loss});
  trainer.add_observer(stopping);
  const kiln::FitResult result = trainer.fit(run.train, 10);
  EXPECT_TRUE(result.stopped_early);
  EXPECT_EQ(result.epochs.size(), 3u);  // the first sets the best; two more without improvement
  EXPECT_EQ(stopping->epochs_without_improvement(), 2);
  EXPECT_THROW(kiln::EarlyStopping({.patience = 0}), kiln::Error);
}

TEST(TrainerObservers, EarlyStoppingLetsAnImprovingRunFinish) {
  LineRun run(0.1f);
  kiln::Trainer trainer(*run.net, run.optimizer, run.loss);
  trainer.add_observer(std::make_shared<kiln::EarlyStopping>(kiln::EarlyStoppingOptions{
      .patience = 1, .monitor = kiln::EarlyStoppingMonitor::train_loss}));
  const kiln::FitResult result = trainer.fit(run.train, 3);
  EXPECT_FALSE(result.stopped_early);
  EXPECT_EQ(result.epochs.size(), 3u);
}

// Watching the test loss (the default, as Keras's val_loss) in a fit without a test loader would
// never stop: refused as the fit begins, before any step, naming the fix; with a test loader it
// judges the test loss, also in a run counted in steps.
TEST(TrainerObservers, EarlyStoppingOnTheTestLossRefusesAFitWithoutATestLoader) {
  LineRun run(0.0f);
  kiln::Trainer trainer(*run.net, run.optimizer, run.loss);
  trainer.add_observer(
      std::make_shared<kiln::EarlyStopping>(kiln::EarlyStoppingOptions{.patience = 2}));
  const std::string message = kiln::testing::error_message([&] { trainer.fit(run.train, 5); });
  EXPECT_NE(message.find("EarlyStopping watches the test loss, but this fit has no test loader"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("EarlyStoppingMonitor::train_loss"), std::string::npos) << message;
  EXPECT_EQ(trainer.state().global_step, 0) << "no step was taken";
  kiln::DataLoader test{LineRun::points(), {.batch_size = 8, .shuffle = false}};
  const kiln::FitResult tested = trainer.fit(run.train, 10, &test);
  EXPECT_TRUE(tested.stopped_early);  // a learning rate of 0: the test loss stays too
  EXPECT_EQ(tested.epochs.size(), 3u);

  LineRun steps_run(0.0f);
  kiln::Trainer by_steps(*steps_run.net, steps_run.optimizer, steps_run.loss, {.steps = 12});
  by_steps.add_observer(std::make_shared<kiln::EarlyStopping>());
  EXPECT_THROW(by_steps.fit_steps(steps_run.train), kiln::Error);
  EXPECT_EQ(by_steps.state().global_step, 0);
}

TEST(NanGuard, ReadsTheLossWhenDueAndNamesTheStep) {
  LineRun run(0.1f);
  kiln::Trainer trainer(*run.net, run.optimizer, run.loss);
  kiln::NanGuard guard(3);
  const kiln::Tensor nan = kiln::Tensor::full({}, std::numeric_limits<float>::quiet_NaN());
  EXPECT_NO_THROW(guard.on_step_end(trainer, {1, 1, 7, nan}));  // not due
  EXPECT_NO_THROW(guard.on_step_end(trainer, {1, 2, 7, nan}));
  const std::string message = kiln::testing::error_message([&] {
    guard.on_step_end(trainer, {1, 3, 7, nan});
  });
  EXPECT_NE(message.find(
                "the loss became nan in epoch 1 at step 3 (checked every few steps: after step 0)"),
            std::string::npos)
      << message;
  EXPECT_NO_THROW(guard.on_step_end(trainer, {2, 3, 7, kiln::Tensor::full({}, 0.5f)}));
  EXPECT_THROW(guard.on_step_end(trainer, {2, 7, 7, nan}), kiln::Error);  // the epoch's last step
  EXPECT_THROW(kiln::NanGuard(0), kiln::Error);
}
