// The data-parallel pieces one process can check: evaluation shards cover the test split exactly
// once, the helpers are the identity alone, the diagnosis names a slow all-reduce, and --gpus
// without a GPU says what is missing.
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>

#include "apps/train/train_checks.h"
#include "kiln/core/device.h"
#include "kiln/data/dataset.h"
#include "kiln/data/subset_dataset.h"
#include "kiln/distributed/data_parallel.h"
#include "kiln/io/safetensors.h"
#include "kiln/training/diagnosis.h"
#include "tests/data/test_datasets.h"
#include "tests/support/train_testing.h"

namespace {

// Sample i has feature i and label i % 10.
class Counting final : public kiln::Dataset {
 public:
  explicit Counting(std::int64_t n) : n_(n) {}
  std::int64_t size() const override { return n_; }
  kiln::Shape sample_shape() const override { return kiln::Shape{1}; }
  std::int32_t num_classes() const override { return 10; }
  void get(std::int64_t index, float* x, kiln::TargetOut y) const override {
    kiln::check_sample_index(*this, index);
    *x = static_cast<float>(index);
    *y.label() = static_cast<std::int32_t>(index % 10);
  }
  std::string describe() const override { return "counting"; }

 private:
  std::int64_t n_;
};

}  // namespace

TEST(EvaluationShard, AShardOfFloatTargetsKeepsThem) {
  auto data = std::make_shared<kiln::testing::RegressionDataset>(7);
  auto shard = kiln::evaluation_shard(data, 1, 2);  // samples [3, 7)
  EXPECT_FALSE(shard->has_class_labels());
  EXPECT_EQ(shard->target_shape(), (kiln::Shape{2}));
  float x[4], y[2];
  shard->get(0, x, y);
  EXPECT_EQ(y[0], 3.5f);
  EXPECT_EQ(y[1], -3.0f);
}

TEST(EvaluationShard, RanksTogetherSeeEveryTestSampleExactlyOnce) {
  for (std::int64_t n : {1, 7, 33, 1000}) {
    for (int world : {1, 2, 3}) {
      auto data = std::make_shared<Counting>(n);
      std::vector<float> seen;
      std::int64_t smallest = n, largest = 0;
      for (int rank = 0; rank < world; ++rank) {
        auto shard = kiln::evaluation_shard(data, rank, world);
        smallest = std::min(smallest, shard->size());
        largest = std::max(largest, shard->size());
        for (std::int64_t i = 0; i < shard->size(); ++i) {
          float x = 0;
          std::int32_t y = 0;
          shard->get(i, &x, &y);
          seen.push_back(x);
        }
      }
      ASSERT_EQ(static_cast<std::int64_t>(seen.size()), n) << "n " << n << ", world " << world;
      for (std::int64_t i = 0; i < n; ++i)
        EXPECT_EQ(seen[static_cast<std::size_t>(i)], static_cast<float>(i));
      EXPECT_LE(largest - smallest, 1) << "shards differ by at most one sample";
    }
  }
}

TEST(SingleProcessDataParallel, HelpersAreTheIdentity) {
  auto comm = kiln::make_single_process_communicator(kiln::Device::cpu());
  kiln::RunningMetrics::Values v{.mean_loss = 0.5, .accuracy = 0.25, .samples = 7};
  const auto total = kiln::sum_over_ranks(v, *comm);
  EXPECT_EQ(total.mean_loss, 0.5);
  EXPECT_EQ(total.samples, 7);
  EXPECT_TRUE(kiln::any_rank_stopping(true, *comm));
  EXPECT_FALSE(kiln::any_rank_stopping(false, *comm));
  EXPECT_NO_THROW(kiln::check_same_options_on_every_rank(kiln::TrainAppOptions{}, *comm));
}

TEST(Diagnosis, NamesAnAllReduceThatTakesAQuarterOfTheStep) {
  kiln::EpochReport r;
  r.wall_s = 10.0;
  r.stages[kiln::Stage::forward] = 3000;
  r.stages[kiln::Stage::backward] = 3000;
  r.stages[kiln::Stage::allreduce] = 3500;
  const auto lines = kiln::diagnose(r, 2).lines();
  bool named = false;
  for (const auto& line : lines) named |= line.rfind("communication-bound: 35 %", 0) == 0;
  EXPECT_TRUE(named) << ::testing::PrintToString(lines);
  r.stages[kiln::Stage::allreduce] = 500;
  for (const auto& line : kiln::diagnose(r, 2).lines())
    EXPECT_EQ(line.find("communication-bound"), std::string::npos);
}

TEST(DataParallelTraining, GpusWithoutAUsableGpuSaysWhatIsMissing) {
  if (kiln::cuda_available()) GTEST_SKIP() << "a GPU is present: tests/gpu trains with --gpus";
  kiln::TrainAppOptions o;
  o.gpus = {0, 1};
  o.device = "gpu";
  o.quiet = true;
  std::ostringstream out;
  try {
    kiln::train(o, out);
    FAIL() << "expected an error";
  } catch (const kiln::Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("need a GPU"), std::string::npos) << message;
    EXPECT_NE(message.find("--gpus"), std::string::npos) << message;
  }
}

namespace {
// One rank that behaves like NCCL towards the trainer (collectives beside compute, so buckets
// start from backward's hook) and counts what it is asked; the mean over one rank is the identity.
class CountingOverlapCommunicator final : public kiln::Communicator {
 public:
  CountingOverlapCommunicator() : Communicator(0, 1, kiln::Device::cpu()) {}
  std::string describe() const override { return "counting rank 0 of 1"; }
  bool overlaps_compute() const override { return true; }
  int all_reduces = 0, waits = 0, broadcasts = 0, pending = 0;

 protected:
  void all_reduce_async_impl(kiln::Tensor&, kiln::CollectiveOp op) override {
    EXPECT_EQ(op, kiln::CollectiveOp::mean);
    ++all_reduces;
    ++pending;
  }
  void wait_all_impl() override {
    ++waits;
    pending = 0;
  }
  void broadcast_impl(kiln::Tensor&, int) override { ++broadcasts; }
  void all_reduce_host_impl(std::span<double>, kiln::CollectiveOp) override {}
  void barrier_impl() override {}
};

kiln::TrainAppOptions tiny_run(const std::string& name) {
  kiln::TrainAppOptions o = kiln::testing::small_article_run("mlp:784-32-10", 256, 32);
  o.workers = 0;
  o.distributed = "none";
  o.checkpoint_dir = kiln::testing::fresh_checkpoint_dir("overlap_" + name);
  return o;
}
}  // namespace

TEST(DataParallelTraining, BucketsStartedFromBackwardReachTheWeightsOfAPlainRun) {
  std::ostringstream out;
  const kiln::TrainAppOptions plain = tiny_run("plain");
  kiln::train(plain, out);
  kiln::TrainAppOptions bucketed = tiny_run("bucketed");
  bucketed.bucket_mb = 0.01;  // 2 buckets: layer 1 with layer 0's bias, then layer 0's weight
  CountingOverlapCommunicator comm;
  kiln::train_replica(bucketed, out, nullptr, comm);
  EXPECT_EQ(comm.broadcasts, 4) << "the 4 parameters, once, from rank 0";
  EXPECT_EQ(comm.all_reduces, 2 * 16) << "2 buckets in each of 16 steps, none twice";
  EXPECT_EQ(comm.pending, 0) << "every step waits for its buckets";
  const auto a = kiln::load_safetensors(plain.checkpoint_dir + "/model.safetensors");
  const auto b = kiln::load_safetensors(bucketed.checkpoint_dir + "/model.safetensors");
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (const auto& [name, tensor] : a.tensors)
    EXPECT_EQ(b.tensors.at(name).to_vector<float>(), tensor.to_vector<float>()) << name;
}
