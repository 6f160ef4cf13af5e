// The run's typed record (checkpoint/run_fingerprint.h): a model's structure in words, a
// fingerprint that changes with anything that changes the run, and resume() refusing a
// checkpoint of a model of another structure when the model has no spec.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kiln/checkpoint/run_fingerprint.h"
#include "kiln/checkpoint/training_state.h"
#include "kiln/data/data_loader.h"
#include "kiln/data/tensor_dataset.h"
#include "kiln/layers/mse_loss.h"
#include "kiln/models/presets.h"
#include "kiln/optim/sgd.h"
#include "kiln/training/trainer.h"
#include "tests/support/error_testing.h"
#include "tests/support/train_testing.h"

TEST(RunFingerprint, DescribesAModelByItsParametersAndShapes) {
  kiln::Generator gen(3);
  EXPECT_EQ(
      kiln::describe_structure(*kiln::mlp({2, 3, 1}, gen)),
      "layers.0.weight (3, 2); layers.0.bias (3,); layers.2.weight (1, 3); layers.2.bias (1,)");
}

TEST(RunFingerprint, NamesEachFieldWithItsValueAndLeavesUnsetOnesUnrecorded) {
  kiln::RunDescription run;
  run.model = "mlp:2-3-1";
  run.lr = 0.05f;
  run.shuffle = false;
  const std::vector<kiln::RunField> fields = kiln::description_fields(run);
  auto value_of = [&](std::string_view name) {
    for (const kiln::RunField& f : fields)
      if (kiln::api_setting_words().name(f.setting) == name) return f.value;
    ADD_FAILURE() << "no field " << name;
    return std::optional<std::string>();
  };
  EXPECT_EQ(value_of("TrainerOptions::run.model"), "mlp:2-3-1");
  EXPECT_EQ(value_of("TrainerOptions::run.lr"), "0.05");
  EXPECT_EQ(value_of("TrainerOptions::run.shuffle"), "off");
  EXPECT_EQ(value_of("TrainerOptions::run.data"), std::nullopt);
  EXPECT_EQ(value_of("TrainerOptions::run.seed"), std::nullopt);
  const kiln::RunFingerprint fingerprint{run, "w (3, 2)", "bf16", 4, false, 0};
  const std::vector<kiln::RunField> all = kiln::fingerprint_fields(fingerprint);
  ASSERT_EQ(all.size(), fields.size() + 5);
  EXPECT_EQ(all[fields.size() + 1].setting, kiln::Setting::precision);
  EXPECT_EQ(all[fields.size() + 1].value, "bf16");
  EXPECT_EQ(all[fields.size() + 2].value, "4");
}

TEST(RunFingerprint, ACheckpointRecordsItTypedAndReadsItBack) {
  kiln::TrainingState state;
  state.batch_size = 64;
  state.run.model = "mlp:2-3-1";
  state.run.seed = 7;
  state.run.lr = 0.05f;
  state.run.nesterov = true;
  state.run.test_share = 0.25;
  state.run.test_data = "";
  const std::string json = kiln::state_to_json(state);
  EXPECT_NE(json.find("\"lr\": 0.05,"), std::string::npos) << json;
  const kiln::TrainingState again = kiln::parse_training_state(json, "state.json");
  EXPECT_EQ(again.run, state.run);
  EXPECT_TRUE(again.legacy_settings.empty());
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
