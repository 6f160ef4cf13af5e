// Hostile input, round 4, in the Trainer: what used to be accepted and then did nothing or the
// wrong thing is refused or said: a second fit with the same count, a model whose outputs cannot
// score the data (named with the data before a step), the clipping and the weight decay's groups
// in the run's record (a resume with other values is refused), a user's file where the checkpoint
// folder keeps its links, weights that are not numbers in a file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "kiln/checkpoint/checkpoint.h"
#include "kiln/data/data_loader.h"
#include "kiln/io/safetensors.h"
#include "kiln/layers/cross_entropy_loss.h"
#include "kiln/layers/mse_loss.h"
#include "kiln/layers/sequence_cross_entropy_loss.h"
#include "kiln/models/presets.h"
#include "kiln/optim/sgd.h"
#include "kiln/training/trainer.h"
#include "tests/support/blobs_dataset.h"
#include "tests/support/error_testing.h"
#include "tests/support/train_testing.h"

namespace {

using kiln::testing::BlobsDataset;
using kiln::testing::error_message;
using ::testing::HasSubstr;

// An MLP 8 -> 5 -> `outputs` on the blobs (8 features, 3 classes) with SGD.
struct BlobRun {
  explicit BlobRun(std::int64_t outputs = 3) : net(kiln::mlp({8, 5, outputs}, gen)) {}
  kiln::Generator gen{11};
  std::shared_ptr<kiln::Sequential> net;
  kiln::Sgd optimizer{net->parameters(), 0.05f};
  kiln::CrossEntropyLoss loss;
  kiln::DataLoader train{std::make_shared<BlobsDataset>(70), {.batch_size = 16, .shuffle = false}};
};

// Windows of 7 token ids with a label per position (as token windows are), 5 classes.
class WindowsDataset : public kiln::Dataset {
 public:
  std::int64_t size() const override { return 13; }
  kiln::Shape sample_shape() const override { return kiln::Shape{7}; }
  std::int32_t num_classes() const override { return 5; }
  kiln::Shape target_shape() const override { return kiln::Shape{7}; }
  void get(std::int64_t index, float* x, kiln::TargetOut y) const override {
    for (int t = 0; t < 7; ++t) {
      x[t] = static_cast<float>((index + t) % 5);
      y.label()[t] = static_cast<std::int32_t>((index + t + 1) % 5);
    }
  }
  std::string describe() const override { return "windows (13 x (7))"; }
};

// Float targets of 3 values per sample over 4 features.
class Regression3Dataset : public kiln::Dataset {
 public:
  std::int64_t size() const override { return 9; }
  kiln::Shape sample_shape() const override { return kiln::Shape{4}; }
  std::int32_t num_classes() const override { return 0; }
  bool has_class_labels() const override { return false; }
  kiln::Shape target_shape() const override { return kiln::Shape{3}; }
  void get(std::int64_t index, float* x, kiln::TargetOut y) const override {
    for (int i = 0; i < 4; ++i) x[i] = static_cast<float>(index * i) / 9.0f;
    for (int i = 0; i < 3; ++i) y.values()[i] = static_cast<float>(index + i);
  }
  std::string describe() const override { return "regression (9 x (4))"; }
};

}  // namespace

TEST(SilentSettings, ASecondFitWithTheSameEpochsIsRefusedAndALargerCountTrainsTheRest) {
  BlobRun run;
  kiln::Trainer trainer(*run.net, run.optimizer, run.loss);
  EXPECT_EQ(trainer.fit(run.train, 2).epochs.size(), 2u);
  for (const std::int64_t epochs : {1, 2}) {
    const std::string message = error_message([&] { trainer.fit(run.train, epochs); });
    EXPECT_THAT(message, HasSubstr(fmt::format(
                             "fit's epochs {} counts the epochs in all, and this run has trained 2 "
                             "already: give more than 2 (fit's epochs {} trains {} more)",
                             epochs, 2 + epochs, epochs)));
  }
  EXPECT_EQ(trainer.state().global_step, 10) << "the refused fits took no step";
  EXPECT_EQ(trainer.fit(run.train, 3).epochs.size(), 1u);
  EXPECT_THAT(error_message([&] { trainer.fit(run.train, 0); }),
              HasSubstr("fit's epochs must be at least 1, found 0"));
}

TEST(SilentSettings, AResumedRunThatIsDoneSaysSoWithItsCheckpoint) {
  const std::string dir = kiln::testing::fresh_checkpoint_dir("silent_done");
  {
    BlobRun run;
    kiln::Trainer(*run.net, run.optimizer, run.loss, {.checkpoint_dir = dir}).fit(run.train, 3);
  }
  BlobRun run;
  kiln::Trainer trainer(*run.net, run.optimizer, run.loss, {.checkpoint_dir = dir});
  ASSERT_TRUE(trainer.resume());
  EXPECT_THAT(error_message([&] { trainer.fit(run.train, 3); }),
              HasSubstr("this run has trained 3 already (with its checkpoint's)"));
  EXPECT_EQ(trainer.fit(run.train, 4).epochs.size(), 1u);
}

TEST(SilentSettings, AFitStepsWithItsStepsDoneIsRefused) {
  BlobRun run;
  kiln::Trainer trainer(*run.net, run.optimizer, run.loss, {.steps = 7});
  EXPECT_EQ(trainer.fit_steps(run.train).epochs.size(), 1u);
  EXPECT_EQ(trainer.state().global_step, 7);
  EXPECT_THAT(error_message([&] { trainer.fit_steps(run.train); }),
              HasSubstr("TrainerOptions::steps 7 counts the steps in all, and this run has taken 7 "
                        "already: give more than 7"));
}

TEST(SilentSettings, AModelWithFewerOutputsThanClassesIsRefusedNamingBothBeforeAStep) {
  BlobRun run(2);  // 2 outputs, 3 classes: labels of class 2 would be out of range mid-epoch
  kiln::Trainer trainer(*run.net, run.optimizer, run.loss);
  const std::string message = error_message([&] { trainer.fit(run.train, 1); });
  EXPECT_THAT(message, HasSubstr("gives outputs of shape (2,) per sample"));
  EXPECT_THAT(message, HasSubstr("blobs"));
  EXPECT_THAT(message, HasSubstr("a class label per sample of 3 classes"));
  EXPECT_THAT(message, HasSubstr("whose output per sample is (3,)"));
  EXPECT_EQ(trainer.state().global_step, 0);
  BlobRun wider(4);  // a spare logit harms nothing, as in PyTorch
  EXPECT_EQ(
      kiln::Trainer(*wider.net, wider.optimizer, wider.loss).fit(wider.train, 1).epochs.size(), 1u);
}

TEST(SilentSettings, AnMlpOnTokenWindowsIsRefusedAsNotFittingTheData) {
  kiln::Generator gen(2);
  for (const std::int64_t outputs : {5, 35}) {  // one vector per sample, however wide
    const auto net = kiln::mlp({7, 9, outputs}, gen);
    kiln::Sgd optimizer(net->parameters(), 0.1f);
    kiln::SequenceCrossEntropyLoss loss;
    kiln::DataLoader train(std::make_shared<WindowsDataset>(), {.batch_size = 4});
    kiln::Trainer trainer(*net, optimizer, loss);
    const std::string message = error_message([&] { trainer.fit(train, 1); });
    EXPECT_THAT(message,
                HasSubstr(fmt::format("gives outputs of shape ({},) per sample", outputs)));
    EXPECT_THAT(message, HasSubstr("a label per position, (7,) of 5 classes"));
    EXPECT_THAT(message, HasSubstr("whose output per sample is (7, 5)"));
    EXPECT_THAT(message, HasSubstr("a GPT"));
  }
}

TEST(SilentSettings, AModelGivingAnotherNumberOfFloatTargetsIsRefused) {
  kiln::Generator gen(4);
  for (const std::int64_t outputs : {1, 2, 4}) {
    const auto net = kiln::mlp({4, 6, outputs}, gen);
    kiln::Sgd optimizer(net->parameters(), 0.1f);
    kiln::MSELoss loss;
    kiln::DataLoader train(std::make_shared<Regression3Dataset>(), {.batch_size = 3});
    kiln::Trainer trainer(*net, optimizer, loss);
    EXPECT_THAT(error_message([&] { trainer.fit(train, 1); }),
                HasSubstr(fmt::format("gives {} values per sample, but regression (9 x (4)) has "
                                      "float targets of shape (3,)",
                                      outputs)));
  }
}

TEST(SilentSettings, TheRecordHoldsClippingAndDecayGroupsAndAResumeWithOthersIsRefused) {
  const std::string dir = kiln::testing::fresh_checkpoint_dir("silent_clip");
  {
    BlobRun run;
    kiln::Trainer trainer(*run.net, run.optimizer, run.loss,
                          {.checkpoint_dir = dir,
                           .run = {.weight_decay_groups = "matrices"},
                           .clip_grad_norm = 0.5f});
    trainer.fit(run.train, 1);
  }
  const auto saved = kiln::read_checkpoint(dir);
  ASSERT_TRUE(saved.has_value());
  EXPECT_EQ(saved->state.run.clip_grad_norm, 0.5f);
  EXPECT_EQ(saved->state.run.weight_decay_groups, "matrices");
  struct Other {
    float clip;
    std::string groups;
    std::string difference;
  };
  for (const Other& other :
       {Other{1.0f, "matrices", "TrainerOptions::clip_grad_norm 0.5 (this run: 1)"},
        Other{0.0f, "matrices", "TrainerOptions::clip_grad_norm 0.5 (this run: 0)"},
        Other{0.5f, "all", "TrainerOptions::run.weight_decay_groups matrices (this run: all)"}}) {
    BlobRun run;
    kiln::Trainer trainer(*run.net, run.optimizer, run.loss,
                          {.checkpoint_dir = dir,
                           .run = {.weight_decay_groups = other.groups},
                           .clip_grad_norm = other.clip});
    EXPECT_THAT(error_message([&] { trainer.resume(); }), HasSubstr(other.difference));
  }
  BlobRun same;
  kiln::Trainer trainer(
      *same.net, same.optimizer, same.loss,
      {.checkpoint_dir = dir, .run = {.weight_decay_groups = "matrices"}, .clip_grad_norm = 0.5f});
  EXPECT_TRUE(trainer.resume());
}

TEST(SilentSettings, AUsersFileWhereTheFolderKeepsALinkIsRefusedAndLeftAsItWas) {
  for (const std::string name : {"model.safetensors", "optimizer.safetensors", "latest"}) {
    const std::string dir = kiln::testing::fresh_checkpoint_dir("silent_user_file");
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/" + name) << "the user's own";
    BlobRun run;
    EXPECT_THAT(error_message([&] {
                  kiln::Trainer(*run.net, run.optimizer, run.loss, {.checkpoint_dir = dir});
                }),
                HasSubstr("holds '" + name + "', a file of its own where kiln keeps a link"));
    std::ifstream in(dir + "/" + name);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "the user's own");
  }
  const std::string dir = kiln::testing::fresh_checkpoint_dir("silent_user_folder");
  std::filesystem::create_directories(dir + "/model.safetensors");
  BlobRun run;
  EXPECT_THAT(error_message([&] {
                kiln::Trainer(*run.net, run.optimizer, run.loss, {.checkpoint_dir = dir});
              }),
              HasSubstr("a folder of its own"));
}

TEST(SilentSettings, WeightsThatAreNotNumbersInAFileAreNamedByTensor) {
  const float bad[] = {std::numeric_limits<float>::quiet_NaN(),
                       std::numeric_limits<float>::infinity(),
                       -std::numeric_limits<float>::infinity()};
  for (std::size_t k = 0; k < 3; ++k) {
    BlobRun run;
    std::vector<std::pair<std::string, kiln::Tensor>> weights;
    for (const kiln::Parameter* p : run.net->parameters())
      weights.emplace_back(p->name, p->value.clone());
    std::vector<float> values = weights[2].second.to_vector<float>();
    values[k + 1] = bad[k];
    weights[2].second = kiln::Tensor::from_vector(values, weights[2].second.shape());
    const std::string path = ::testing::TempDir() + "kiln_silent_nan.safetensors";
    kiln::save_safetensors(path, weights);
    const std::string message = error_message([&] { kiln::load_weights(path, *run.net); });
    EXPECT_THAT(message, HasSubstr("tensor '" + weights[2].first + "' holds"));
    EXPECT_THAT(message, HasSubstr(fmt::format("at element {} of", k + 1)));
    EXPECT_THAT(message, HasSubstr("not numbers"));
    std::filesystem::remove(path);
  }
}
