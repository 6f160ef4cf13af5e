// The run's typed record (training/run_fingerprint.h): a model's structure in words, a
// fingerprint that changes with anything that changes the run, and resume() refusing a
// checkpoint of a model of another structure when the model has no spec.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "kiln/data/data_loader.h"
#include "kiln/data/tensor_dataset.h"
#include "kiln/layers/mse_loss.h"
#include "kiln/models/presets.h"
#include "kiln/optim/sgd.h"
#include "kiln/training/run_fingerprint.h"
#include "kiln/training/trainer.h"
#include "tests/support/error_testing.h"
#include "tests/support/train_testing.h"

TEST(RunFingerprint, DescribesAModelByItsParametersAndShapes) {
  kiln::Generator gen(3);
  EXPECT_EQ(
      kiln::describe_structure(*kiln::mlp({2, 3, 1}, gen)),
      "layers.0.weight (3, 2); layers.0.bias (3,); layers.2.weight (1, 3); layers.2.bias (1,)");
}

TEST(RunFingerprint, ChangesWithTheModelTheDataAndEachSetting) {
  const kiln::RunDescription run{"mlp:2-3-1", "article", "sgd", 1, 64};
  const std::uint64_t base = kiln::run_fingerprint(run, "s", {{"lr", "0.1"}});
  EXPECT_EQ(kiln::run_fingerprint(run, "s", {{"lr", "0.1"}}), base);
  EXPECT_NE(kiln::run_fingerprint(run, "s", {{"lr", "0.2"}}), base);
  EXPECT_NE(kiln::run_fingerprint(run, "t", {{"lr", "0.1"}}), base);
  kiln::RunDescription other = run;
  other.data = "fashion-mnist";
  EXPECT_NE(kiln::run_fingerprint(other, "s", {{"lr", "0.1"}}), base);
}

TEST(RunFingerprint, ResumeRefusesACheckpointOfAModelOfAnotherStructure) {
  const std::string dir = kiln::testing::fresh_checkpoint_dir("structure");
  auto data = std::make_shared<kiln::TensorDataset>(std::vector<float>{1, 2, 3, 4}, kiln::Shape{1},
                                                    std::vector<float>{2, 4, 6, 8});
  kiln::MSELoss loss;
  {
    kiln::Generator gen(1);
    const auto net = kiln::mlp({1, 4, 1}, gen);
    kiln::Sgd optimizer(net->parameters(), 0.01f);
    kiln::DataLoader train(data, {.batch_size = 2});
    kiln::Trainer(*net, optimizer, loss, {.checkpoint_dir = dir}).fit(train, 1);
  }
  kiln::Generator gen(1);
  const auto wider = kiln::mlp({1, 8, 1}, gen);
  kiln::Sgd optimizer(wider->parameters(), 0.01f);
  kiln::Trainer trainer(*wider, optimizer, loss, {.checkpoint_dir = dir});
  EXPECT_NE(kiln::testing::error_message([&] {
              trainer.resume();
            }).find("was made with the model's structure layers.0.weight (4, 1);"),
            std::string::npos);
}
