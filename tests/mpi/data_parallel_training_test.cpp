// Data-parallel training under mpirun -np 2 (ctest label mpi): N ranks at global batch B end
// with the weights one process reaches at batch B, evaluation is summed over the ranks, and
// ranks started with different options stop with one clear message instead of hanging.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "apps/train/train_options.h"
#include "kiln/distributed/mpi_communicator.h"
#include "kiln/distributed/rank_agreement.h"
#include "kiln/io/safetensors.h"
#include "tests/support/tensor_testing.h"
#include "tests/support/train_testing.h"

namespace {

constexpr const char* kFashionMnist = "/usr/share/datasets/fashion-mnist";

kiln::TrainAppOptions small_run(const std::string& dir) {
  kiln::TrainAppOptions o;
  o.model = "mlp:784-64-10";
  o.data = "fashion-mnist";
  o.samples = 1024;
  o.epochs = 2;
  o.max_steps = 6;  // 6 steps of each epoch: 12 optimizer steps in all
  o.batch_size = 64;
  o.lr = 0.05f;
  o.optimizer = "momentum";
  o.schedule = "cosine";
  o.workers = 1;
  o.threads = 1;
  o.quiet = true;
  o.checkpoint_dir = dir;
  o.dist_timeout_s = 120;
  return o;
}

// Per job as well as per rank: ctest runs this suite as two mpirun jobs at once (label mpi), and
// one job's ranks must not remove the folders the other's are writing. PMIx names each job.
std::string fresh_dir(const std::string& name, int rank) {
  const char* job = std::getenv("PMIX_NAMESPACE");
  return kiln::testing::fresh_checkpoint_dir("mpi_" + name + "_rank" + std::to_string(rank) +
                                             "_job" + (job ? job : "alone"));
}

int this_rank() { return kiln::mpi_launch_from_environment().value_or(kiln::MpiLaunch{}).rank; }

void expect_same_weights(const std::string& a_dir, const std::string& b_dir) {
  const auto a = kiln::load_safetensors(a_dir + "/model.safetensors");
  const auto b = kiln::load_safetensors(b_dir + "/model.safetensors");
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (const auto& [name, tensor] : a.tensors) {
    ASSERT_TRUE(b.tensors.count(name)) << name;
    EXPECT_TRUE(kiln::testing::all_close(b.tensors.at(name), tensor, 1e-4f, 1e-5f)) << name;
  }
}

}  // namespace

TEST(DataParallelTraining, TwoRanksAtGlobalBatchBEndWithTheWeightsOfOneRankAtBatchB) {
  if (!std::filesystem::exists(kFashionMnist))
    GTEST_SKIP() << "no Fashion-MNIST at " << kFashionMnist;
  const int rank = this_rank();
  std::ostringstream out;
  // The reference: this process alone, the whole batch of 64 per step.
  kiln::TrainAppOptions alone = small_run(fresh_dir("alone", rank));
  alone.distributed = "none";
  const kiln::TrainResult reference = kiln::train(alone, out);
  ASSERT_EQ(reference.world_size, 1);

  for (double bucket_mb :
       {25.0, 0.01}) {  // one bucket, then many (the 784x64 weight alone is 0.19 MiB)
    kiln::TrainAppOptions together = small_run(fresh_dir("together", rank));
    together.bucket_mb = bucket_mb;
    const kiln::TrainResult result = kiln::train(together, out);
    ASSERT_GE(result.world_size, 2);
    ASSERT_EQ(result.epochs.size(), 2u);
    const kiln::EpochReport& last = result.epochs.back();
    const kiln::EpochReport& want = reference.epochs.back();
    EXPECT_EQ(last.samples, want.samples) << "the global batch is split, not multiplied";
    EXPECT_NEAR(last.train_loss, want.train_loss, 1e-4) << "bucket " << bucket_mb << " MiB";
    EXPECT_NEAR(last.test_loss, want.test_loss, 1e-4);
    EXPECT_NEAR(last.test_accuracy, want.test_accuracy, 2e-4);  // one flipped prediction at most
    EXPECT_GT(last.stages[kiln::Stage::allreduce], 0.0);
    if (rank == 0) {  // only rank 0 writes checkpoints
      expect_same_weights(alone.checkpoint_dir, together.checkpoint_dir);
    } else {
      EXPECT_FALSE(std::filesystem::exists(together.checkpoint_dir + "/model.safetensors"));
    }
    std::filesystem::remove_all(together.checkpoint_dir);
  }
  std::filesystem::remove_all(alone.checkpoint_dir);
}

TEST(DataParallelTraining, RanksWithDifferentOptionsStopWithOneClearMessage) {
  const int rank = this_rank();
  kiln::TrainAppOptions o = kiln::testing::small_article_run("mlp:784-16-10", 256, 32, 1);
  o.schedule = "cosine";
  o.lr = rank == 0 ? 0.05f : 0.1f;
  o.workers = 0;
  o.dist_timeout_s = 60;
  std::ostringstream out;
  try {
    kiln::train(o, out);
    FAIL() << "expected an error on every rank";
  } catch (const kiln::RanksDisagree& e) {  // on every rank, rank 0 to print it
    EXPECT_NE(
        std::string(e.what()).find("describe different runs: --lr (rank 0: 0.05, rank 1: 0.1); "),
        std::string::npos)
        << e.what();
    EXPECT_EQ(e.reported_here(), rank == 0);
  }
}

TEST(DataParallelTraining, AGlobalBatchThatDoesNotSplitEvenlyIsRefused) {
  kiln::TrainAppOptions o =
      kiln::testing::small_article_run("mlp:784-16-10", 256, 33, 1);  // 33: odd
  std::ostringstream out;
  try {
    kiln::train(o, out);
    FAIL() << "expected an error";
  } catch (const kiln::Error& e) {
    EXPECT_NE(std::string(e.what()).find("split evenly"), std::string::npos) << e.what();
  }
}
