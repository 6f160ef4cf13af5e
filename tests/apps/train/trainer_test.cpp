// End-to-end training at small sizes: the loss falls, resume equals an uninterrupted run, a
// checkpoint reads back, and bad options fail with one clear message.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "apps/train/train_options.h"
#include "kiln/io/safetensors.h"
#include "tests/support/train_testing.h"

namespace {

kiln::TrainAppOptions small_run() {
  kiln::TrainAppOptions o = kiln::testing::small_article_run("mlp:784-32-10", 1024, 64);
  o.lr = 0.05f;
  o.workers = 2;
  return o;
}

using kiln::testing::fresh_checkpoint_dir;

std::string error_of(const kiln::TrainAppOptions& o) {
  std::ostringstream out;
  try {
    kiln::train(o, out);
  } catch (const kiln::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Trainer, LearnsTheArticleSetAndReportsEveryStage) {
  kiln::TrainAppOptions o = small_run();
  o.epochs = 3;
  std::ostringstream out;
  const kiln::TrainResult result = kiln::train(o, out);
  ASSERT_EQ(result.epochs.size(), 3u);
  const kiln::EpochReport& last = result.epochs.back();
  EXPECT_LT(last.train_loss, result.epochs.front().train_loss);
  EXPECT_GT(last.test_accuracy, 0.5);  // 10 classes: chance is 0.1
  EXPECT_EQ(last.samples, 1024);
  EXPECT_EQ(last.batches, 16);
  EXPECT_GT(last.stages[kiln::Stage::forward], 0.0);
  EXPECT_GT(last.stages[kiln::Stage::backward], 0.0);
  EXPECT_GT(last.stages[kiln::Stage::optimizer], 0.0);
  EXPECT_FALSE(result.diagnosis.items.empty());
}

TEST(Trainer, ResumingFromACheckpointEndsWithTheSameWeightsAsAnUninterruptedRun) {
  kiln::TrainAppOptions straight = small_run();
  straight.checkpoint_dir = fresh_checkpoint_dir("trainer_straight");
  std::ostringstream out;
  kiln::train(straight, out);

  kiln::TrainAppOptions first = small_run();
  first.checkpoint_dir = fresh_checkpoint_dir("trainer_resumed");
  first.epochs = 1;
  kiln::train(first, out);
  kiln::TrainAppOptions second = small_run();
  second.checkpoint_dir = first.checkpoint_dir;
  second.resume = true;
  const kiln::TrainResult resumed = kiln::train(second, out);
  EXPECT_EQ(resumed.epochs.size(), 1u);  // only the second epoch ran

  const auto a = kiln::load_safetensors(straight.checkpoint_dir + "/model.safetensors");
  const auto b = kiln::load_safetensors(second.checkpoint_dir + "/model.safetensors");
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (const auto& [name, tensor] : a.tensors)
    EXPECT_EQ(tensor.to_vector<float>(), b.tensors.at(name).to_vector<float>()) << name;
}

TEST(Trainer, StartsFromSavedWeightsWithInit) {
  kiln::TrainAppOptions o = small_run();
  o.epochs = 1;
  o.checkpoint_dir = fresh_checkpoint_dir("trainer_init");
  std::ostringstream out;
  const double trained = kiln::train(o, out).epochs.back().test_accuracy;
  kiln::TrainAppOptions again = small_run();
  again.epochs = 1;
  again.lr = 1e-9f;  // leaves the loaded weights as they are
  again.init = o.checkpoint_dir + "/model.safetensors";
  EXPECT_NEAR(kiln::train(again, out).epochs.back().test_accuracy, trained, 0.02);
}

TEST(Trainer, AStopBeforeTrainingEndsTheModelsBuildAndSavesNothing) {
  kiln::TrainAppOptions o = small_run();
  o.checkpoint_dir = fresh_checkpoint_dir("trainer_stop");
  // As if Ctrl-C came before training: the build polls the request (a model of a million blocks
  // takes minutes to build), so nothing is trained and no checkpoint is written. A stop during
  // training saves one: tests/apps/stop_signal_test.cpp.
  std::atomic<bool> stop{true};
  std::ostringstream out;
  EXPECT_THROW(kiln::train(o, out, &stop), kiln::Interrupted);
  EXPECT_FALSE(std::filesystem::exists(o.checkpoint_dir + "/state.json"));
}

TEST(Trainer, FailsClearlyOnBadOptionsAndDivergence) {
  kiln::TrainAppOptions o = small_run();
  o.device = "gpu";
  if (!kiln::cuda_available()) EXPECT_NE(error_of(o).find("use --device=cpu"), std::string::npos);
  o = small_run();
  o.model = "mlp:100-10";
  EXPECT_NE(error_of(o).find("first width is 784"), std::string::npos);
  o = small_run();
  o.data = "fashion-mnist:/nonexistent";
  EXPECT_NE(error_of(o).find("/nonexistent"), std::string::npos);
  o = small_run();
  o.data = "parquet:x";
  EXPECT_NE(error_of(o).find("unknown data 'parquet:x'"), std::string::npos);
  o = small_run();
  o.lr = 1e30f;
  const std::string nan = error_of(o);
  EXPECT_NE(nan.find("the loss became"), std::string::npos) << nan;
  EXPECT_NE(nan.find("epoch 1 at step"), std::string::npos) << nan;
  o = small_run();
  o.resume = true;
  EXPECT_NE(error_of(o).find("--resume needs --checkpoint"), std::string::npos);
}

TEST(Trainer, CudaGraphIsRefusedOnTheCpu) {
  kiln::TrainAppOptions o = small_run();
  o.cuda_graph = true;
  EXPECT_NE(error_of(o).find("--cuda-graph records GPU work"), std::string::npos) << error_of(o);
}

TEST(Trainer, NumericFlagsAreRangeChecked) {
  kiln::TrainAppOptions o = small_run();
  o.samples = -1;
  EXPECT_NE(error_of(o).find("--samples must be >= 0 (0: all samples), found -1"),
            std::string::npos);
  o = small_run();
  o.workers = 100000;
  EXPECT_NE(error_of(o).find("--workers must be in [0, 256], found 100000"), std::string::npos);
  o = small_run();
  o.batch_size = 1000000000000;
  const std::string batch = error_of(o);
  EXPECT_NE(batch.find("--batch-size 1000000000000 is more than the 1024 training samples"),
            std::string::npos)
      << batch;
  o = small_run();
  o.threads = 100000;
  EXPECT_NE(error_of(o).find("--threads must be in [0, "), std::string::npos);
  o = small_run();
  o.weight_decay = std::nanf("");
  EXPECT_NE(error_of(o).find("--weight-decay must be >= 0, found nan"), std::string::npos);
  o = small_run();
  o.bucket_mb = 1e300;
  EXPECT_NE(error_of(o).find("--bucket-mb must be in (0, 1048576] MiB"), std::string::npos);
  o = small_run();
  o.samples = 1000000000000;  // the article set is generated: any size parses, not every one fits
  EXPECT_NE(error_of(o).find("--samples 1000000000000 for the article set: at most"),
            std::string::npos);
}

TEST(Trainer, BadOutputPathsFailBeforeAnyTraining) {
  kiln::TrainAppOptions o = small_run();
  o.log_json = "/nonexistent/kiln/log.jsonl";
  o.checkpoint_dir = fresh_checkpoint_dir("trainer_bad_log");
  EXPECT_NE(error_of(o).find("cannot open --log-json file '/nonexistent/kiln/log.jsonl'"),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(o.checkpoint_dir + "/latest")) << "no epoch was trained";
  o = small_run();
  o.checkpoint_dir = fresh_checkpoint_dir("trainer_file_ckpt");
  std::ofstream(o.checkpoint_dir) << "a file";
  EXPECT_NE(error_of(o).find("is a file, not a folder"), std::string::npos);
}

TEST(Trainer, ResumeNeedsACheckpointMadeWithTheSameModelAndOptimizer) {
  kiln::TrainAppOptions o = small_run();
  o.checkpoint_dir = fresh_checkpoint_dir("trainer_resume_checks");
  o.resume = true;
  EXPECT_NE(
      error_of(o).find(
          "holds no checkpoint (no latest, no state.json); to start fresh, run without --resume"),
      std::string::npos);
  o.resume = false;
  o.epochs = 1;
  std::ostringstream out;
  kiln::train(o, out);
  kiln::TrainAppOptions other = o;
  other.resume = true;
  other.epochs = 2;
  other.optimizer = "adam";
  other.lr = 0.001f;
  const std::string message = error_of(other);
  EXPECT_NE(message.find(
                "was made with --lr 0.05 (this run: 0.001), --optimizer momentum (this run: adam)"),
            std::string::npos)
      << message;
  other = o;
  other.resume = true;
  other.model = "mlp:784-16-10";
  EXPECT_NE(error_of(other).find("--model mlp:784-32-10 (this run: mlp:784-16-10)"),
            std::string::npos);
  other = o;
  other.resume = true;
  other.epochs = 2;
  other.momentum = 0.5f;
  other.nesterov = true;
  const std::string settings = error_of(other);
  EXPECT_NE(settings.find("--momentum 0.9 (this run: 0.5), --nesterov off (this run: on)"),
            std::string::npos)
      << settings;
  other = o;
  other.resume = true;
  other.epochs = 2;
  other.momentum = 0.9f;  // the momentum optimizer's own: the same run
  EXPECT_EQ(error_of(other), "");
}
