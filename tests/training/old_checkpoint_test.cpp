// Checkpoints of the earlier formats still resume: fixtures/checkpoint-format-2 is what train
// wrote before the library spoke its own API (state.json's settings keyed by train's flags), and a
// checkpoint from before settings were recorded is the same folder with state.json's "settings"
// taken out.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "apps/train/train_options.h"
#include "kiln/io/safetensors.h"
#include "kiln/layers/cross_entropy_loss.h"
#include "kiln/models/presets.h"
#include "kiln/optim/sgd.h"
#include "kiln/training/trainer.h"
#include "tests/support/error_testing.h"
#include "tests/support/train_testing.h"

namespace {

namespace fs = std::filesystem;

// A writable copy of the fixture (links kept as links), in a fresh folder.
std::string copy_of_fixture(const std::string& name) {
  const std::string dir = kiln::testing::fresh_checkpoint_dir(name);
  fs::copy(fs::path(KILN_TEST_FIXTURES) / "checkpoint-format-2", dir,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  return dir;
}

// The fixture was made by one epoch of
//   train --model mlp:784-4-10 --data article --samples 256 --batch-size 64 --workers 0 --threads 1
//         --epochs 1 --checkpoint DIR
// and fixtures/checkpoint-format-2-resumed-to-epoch-2.safetensors holds the weights that train of
// that time ended with after --epochs 2 --resume on it; this is that resume.
kiln::TrainAppOptions run_that_made_it(const std::string& dir) {
  kiln::TrainAppOptions o;
  o.model = "mlp:784-4-10";
  o.data = "article";
  o.samples = 256;
  o.batch_size = 64;
  o.workers = 0;
  o.threads = 1;
  o.epochs = 2;
  o.checkpoint_dir = dir;
  o.resume = true;
  o.quiet = true;
  return o;
}

}  // namespace

TEST(OldCheckpoint, TrainResumesFormatTwoToTheWeightsTheTrainOfItsTimeReached) {
  const std::string dir = copy_of_fixture("old_format_2");
  std::ostringstream out;
  const kiln::TrainResult result = kiln::train(run_that_made_it(dir), out);
  ASSERT_EQ(result.epochs.size(), 1u);  // the second epoch only
  const auto now = kiln::load_safetensors(dir + "/model.safetensors");
  const auto then = kiln::load_safetensors(std::string(KILN_TEST_FIXTURES) +
                                           "/checkpoint-format-2-resumed-to-epoch-2.safetensors");
  ASSERT_EQ(now.tensors.size(), then.tensors.size());
  for (const auto& [name, tensor] : then.tensors) {
    const std::vector<float> a = tensor.to_vector<float>(),
                             b = now.tensors.at(name).to_vector<float>();
    ASSERT_EQ(a.size(), b.size()) << name;
    for (std::size_t i = 0; i < a.size(); ++i)
      EXPECT_NEAR(a[i], b[i], 1e-5f * (1.0f + std::abs(a[i]))) << name << "[" << i << "]";
  }
}

TEST(OldCheckpoint, TrainRefusesFormatTwoMadeWithOtherFlagsNamingThem) {
  kiln::TrainAppOptions o = run_that_made_it(copy_of_fixture("old_format_2_other"));
  o.lr = 0.01f;
  EXPECT_NE(kiln::testing::error_message([&] {
              std::ostringstream out;
              kiln::train(o, out);
            }).find("was made with --lr 0.05 (this run: 0.01)"),
            std::string::npos);
}

TEST(OldCheckpoint, TheLibraryResumesFormatTwoWithoutAnyFlag) {
  const std::string dir = copy_of_fixture("old_format_2_library");
  kiln::Generator gen(1);
  const auto net = kiln::mlp({784, 4, 10}, gen);
  kiln::Sgd optimizer(net->parameters(), 0.05f, {.momentum = 0.9f});
  kiln::CrossEntropyLoss loss;
  kiln::Trainer trainer(*net, optimizer, loss, {.checkpoint_dir = dir});
  ASSERT_TRUE(trainer.resume());
  EXPECT_EQ(trainer.state().epoch, 1);
  EXPECT_EQ(trainer.state().global_step, 4);
}

TEST(OldCheckpoint, OneFromBeforeSettingsWereRecordedIsComparedByItsRunDescription) {
  const std::string dir = copy_of_fixture("old_format_no_settings");
  const fs::path state = fs::path(dir) / "ckpt-000001" / "state.json";
  nlohmann::json j;
  std::ifstream(state) >> j;
  j.erase("settings");
  std::ofstream(state) << j.dump(2);
  kiln::TrainAppOptions o = run_that_made_it(dir);
  o.model = "mlp:784-8-10";
  EXPECT_NE(kiln::testing::error_message([&] {
              std::ostringstream out;
              kiln::train(o, out);
            }).find("was made with --model mlp:784-4-10 (this run: mlp:784-8-10)"),
            std::string::npos);
  o.model = "mlp:784-4-10";
  std::ostringstream out;
  EXPECT_EQ(kiln::train(o, out).epochs.size(), 1u);
}
