// Checkpoint folders: each save is one unit published by `latest`, the newest K are kept, what a
// killed writer left is removed, pieces of different saves are refused, the first layout is
// still read, and a second run is kept out by the lock.
#include "kiln/checkpoint/checkpoint.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "kiln/core/ops.h"
#include "kiln/io/safetensors.h"
#include "kiln/spec/model_spec.h"
#include "kiln/spec/optimizer_spec.h"
#include "tests/support/error_testing.h"
#include "tests/support/train_testing.h"

namespace fs = std::filesystem;
using kiln::testing::error_message;

namespace {

struct Trained {
  kiln::Generator gen{3};
  kiln::Model model = kiln::build_model("mlp:7-5-3", kiln::Shape{7}, 3, gen);
  std::unique_ptr<kiln::Optimizer> optimizer =
      kiln::make_optimizer("adam", model.net->parameters(), 0.01f, {.weight_decay = 0.0f});
  kiln::TrainingState state;

  Trained() {
    state.model = "mlp:7-5-3";
    state.data = "test";
    state.batch_size = 4;
    state.optimizer = "adam";
  }
  // One optimizer step on made-up gradients, so weights and moments change between saves.
  void step(float gradient) {
    for (kiln::Parameter* p : model.net->parameters()) kiln::fill(p->grad, gradient);
    optimizer->step();
    ++state.global_step;
    ++state.epoch;
  }
  void step_and_save(kiln::CheckpointFolder& folder, float gradient) {
    step(gradient);
    kiln::save_checkpoint(folder, *model.net, *optimizer, state);
  }
  std::vector<float> first_weights() const {
    return model.net->parameters()[0]->value.to_vector<float>();
  }
};

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST(Checkpoint, EachSaveIsOneUnitPublishedByLatestAndTheNewestKAreKept) {
  const std::string dir = kiln::testing::fresh_checkpoint_dir("ckpt_units");
  Trained t;
  kiln::CheckpointFolder folder(dir, 2);
  for (int k = 1; k <= 3; ++k) {
    t.step_and_save(folder, 0.1f * static_cast<float>(k));
    EXPECT_EQ(fs::read_symlink(fs::path(dir) / "latest").string(), fmt::format("ckpt-{:06}", k));
  }
  EXPECT_FALSE(fs::exists(fs::path(dir) / "ckpt-000001")) << "only the newest 2 are kept";
  EXPECT_TRUE(fs::exists(fs::path(dir) / "ckpt-000002"));
  for (const char* piece : {"model.safetensors", "optimizer.safetensors", "state.json"})
    EXPECT_EQ(read(fs::path(dir) / piece), read(fs::path(dir) / "ckpt-000003" / piece))
        << piece << " at the top of the folder is the latest one's";

  const auto saved = kiln::read_checkpoint(dir);
  ASSERT_TRUE(saved.has_value());
  EXPECT_EQ(saved->folder, (fs::path(dir) / "ckpt-000003").string());
  EXPECT_EQ(saved->state.epoch, 3);
  EXPECT_EQ(saved->state.pieces.size(), 2u);
  Trained fresh;
  kiln::restore_checkpoint(*saved, *fresh.model.net, *fresh.optimizer);
  EXPECT_EQ(fresh.first_weights(), t.first_weights());
  EXPECT_EQ(fresh.optimizer->steps(), 3);
}

TEST(Checkpoint, PiecesOfDifferentSavesAreRefusedNamingTheFile) {
  const std::string dir = kiln::testing::fresh_checkpoint_dir("ckpt_mixed");
  Trained t;
  kiln::CheckpointFolder folder(dir, 3);
  t.step_and_save(folder, 0.1f);
  t.step_and_save(folder, 0.2f);
  // Epoch 2's weights beside epoch 1's state: the mix a rename-by-rename save could leave.
  const fs::path mixed = fs::path(dir) / "ckpt-000001" / "model.safetensors";
  fs::copy_file(fs::path(dir) / "ckpt-000002" / "model.safetensors", mixed,
                fs::copy_options::overwrite_existing);
  fs::remove(fs::path(dir) / "latest");
  fs::create_symlink("ckpt-000001", fs::path(dir) / "latest");
  const auto saved = kiln::read_checkpoint(dir);
  ASSERT_TRUE(saved.has_value());
  Trained fresh;
  const std::string message =
      error_message([&] { kiln::restore_checkpoint(*saved, *fresh.model.net, *fresh.optimizer); });
  EXPECT_NE(message.find("'" + mixed.string() + "' does not belong to its checkpoint"),
            std::string::npos)
      << message;
}

TEST(Checkpoint, WhatAKilledWriterLeftIsRemovedAndAMissingUnitIsNamed) {
  const std::string dir = kiln::testing::fresh_checkpoint_dir("ckpt_leftovers");
  Trained t;
  {
    kiln::CheckpointFolder folder(dir, 2);
    t.step_and_save(folder, 0.1f);
  }
  fs::create_directories(fs::path(dir) / ".ckpt-000002.tmp");  // killed while writing
  fs::create_directories(fs::path(dir) / "ckpt-000003");       // killed before publishing
  std::ofstream(fs::path(dir) / "model.safetensors.tmp") << "half";
  std::ofstream(fs::path(dir) / "notes.txt") << "the user's";
  { kiln::CheckpointFolder folder(dir, 2); }
  EXPECT_FALSE(fs::exists(fs::path(dir) / ".ckpt-000002.tmp"));
  EXPECT_FALSE(fs::exists(fs::path(dir) / "ckpt-000003"));
  EXPECT_FALSE(fs::exists(fs::path(dir) / "model.safetensors.tmp"));
  EXPECT_TRUE(fs::exists(fs::path(dir) / "notes.txt")) << "files kiln did not write stay";
  EXPECT_TRUE(kiln::read_checkpoint(dir).has_value());
  fs::remove_all(fs::path(dir) / "ckpt-000001");
  EXPECT_NE(error_message([&] { kiln::read_checkpoint(dir); }).find("which is missing"),
            std::string::npos);
}

TEST(Checkpoint, TheFirstLayoutIsStillReadAndConvertedByTheNextSave) {
  const std::string dir = kiln::testing::fresh_checkpoint_dir("ckpt_first_layout");
  fs::create_directories(dir);
  Trained t;
  t.step(0.1f);
  std::vector<std::pair<std::string, kiln::Tensor>> weights;
  for (const kiln::Parameter* p : t.model.net->parameters())
    weights.emplace_back(p->name, p->value);
  const auto moments = t.optimizer->state();
  kiln::save_safetensors(dir + "/model.safetensors", weights);
  kiln::save_safetensors(dir + "/optimizer.safetensors", {moments.begin(), moments.end()});
  std::ofstream(dir + "/state.json")
      << R"({"epoch": 1, "batches_done": 0, "global_step": 1, "seed": 1,
    "generator_offset": 0, "model": "mlp:7-5-3", "data": "test", "batch_size": 4, "optimizer": "adam",
    "format": "kiln-checkpoint-1", "optimizer_steps": 1})";
  const auto saved = kiln::read_checkpoint(dir);
  ASSERT_TRUE(saved.has_value());
  EXPECT_EQ(saved->folder, dir);
  Trained fresh;
  kiln::restore_checkpoint(*saved, *fresh.model.net, *fresh.optimizer);
  EXPECT_EQ(fresh.first_weights(), t.first_weights());

  kiln::CheckpointFolder folder(dir, 2);
  t.step_and_save(folder, 0.2f);
  EXPECT_TRUE(fs::is_symlink(dir + "/state.json")) << "the old files became links to the new unit";
  EXPECT_EQ(kiln::read_checkpoint(dir)->state.epoch, 2);
}

TEST(Checkpoint, ASecondRunOnTheFolderIsKeptOutNamingTheFirst) {
  const std::string dir = kiln::testing::fresh_checkpoint_dir("ckpt_lock");
  kiln::CheckpointFolder first(dir, 2);
  const std::string message = error_message([&] { kiln::CheckpointFolder second(dir, 2); });
  EXPECT_NE(message.find("checkpoint folder '" + dir + "' is in use by another run (process " +
                         std::to_string(getpid()) + " on "),
            std::string::npos)
      << message;
  std::ofstream(dir + "/file") << "x";
  EXPECT_NE(error_message([&] {
              kiln::CheckpointFolder(dir + "/file", 2);
            }).find("is a file, not a folder"),
            std::string::npos);
}

TEST(TrainingState, BadValuesNameTheFileAndTheField) {
  const std::string good =
      R"({"epoch": 1, "batches_done": 0, "global_step": 4, "seed": 1, "generator_offset": 0,
    "model": "m", "data": "d", "batch_size": 4, "optimizer": "adam", "optimizer_steps": 4})";
  EXPECT_EQ(kiln::parse_training_state(good, "s.json").global_step, 4);
  auto with = [&](const std::string& field, const std::string& value) {
    std::string text = good;
    const std::size_t at = text.find("\"" + field + "\": ") + field.size() + 4;
    text.replace(at, text.find_first_of(",}", at) - at, value);
    return error_message([&] { kiln::parse_training_state(text, "s.json"); });
  };
  EXPECT_NE(
      with("epoch", "-1").find("'s.json': \"epoch\" is -1: expected an integer of at least 0"),
      std::string::npos);
  EXPECT_NE(with("global_step", "\"4\"").find("\"global_step\" is \"4\""), std::string::npos);
  EXPECT_NE(with("seed", "-1").find("\"seed\" is -1: expected a non-negative integer"),
            std::string::npos);
  EXPECT_NE(with("batch_size", "0").find("\"batch_size\" is 0: expected an integer of at least 1"),
            std::string::npos);
  EXPECT_NE(with("batches_done", "9").find("9 batches of the current epoch done but only 4 steps"),
            std::string::npos);
  EXPECT_NE(error_message([&] {
              kiln::parse_training_state("{\"epoch\": 1}", "s.json");
            }).find("'s.json' lacks the field \"batches_done\""),
            std::string::npos);
  EXPECT_NE(error_message([&] {
              kiln::parse_training_state("[1, 2", "s.json");
            }).find("'s.json' is not a readable"),
            std::string::npos);
}
