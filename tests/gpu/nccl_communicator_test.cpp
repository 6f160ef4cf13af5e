// NCCL communicators on the GPUs present (label gpu; skipped, visibly, without a device): one
// communicator per GPU from ncclCommInitAll, driven by one thread each, all-reduces and
// broadcasts like the CPU reference; and `--gpus 0` training equals plain single-GPU training.
#include <gtest/gtest.h>

#include <sstream>
#include <thread>

#include "apps/train/train_options.h"
#include "kiln/distributed/nccl_communicator.h"
#include "kiln/io/safetensors.h"
#include "tests/support/tensor_testing.h"
#include "tests/support/train_testing.h"

namespace {

std::vector<int> every_gpu() {
  std::vector<int> devices;
  for (int i = 0; i < kiln::cuda_device_count(); ++i) devices.push_back(i);
  return devices;
}

float value(int rank, std::int64_t i) {
  return static_cast<float>((rank + 1) * 100 + i % 89) * 0.5f;
}

// Runs `body(rank, comm)` on one thread per communicator, as training does.
template <typename Body>
void on_every_rank(std::vector<std::unique_ptr<kiln::Communicator>>& comms, Body body) {
  std::vector<std::thread> threads;
  std::vector<std::string> failures(comms.size());
  for (std::size_t r = 0; r < comms.size(); ++r)
    threads.emplace_back([&, r] {
      try {
        body(static_cast<int>(r), *comms[r]);
      } catch (const std::exception& e) {
        failures[r] = e.what();
      }
    });
  for (auto& t : threads) t.join();
  for (std::size_t r = 0; r < comms.size(); ++r) EXPECT_EQ(failures[r], "") << "rank " << r;
}

}  // namespace

TEST(NcclCommunicator, AllReduceOfOddSizesMatchesTheCpuSumMeanAndMaxOnEveryGpu) {
  KILN_REQUIRE_GPU();
  const std::vector<int> devices = every_gpu();
  auto comms = kiln::make_nccl_communicators(devices, {.timeout_s = 60});
  ASSERT_EQ(comms.size(), devices.size());
  const int world = static_cast<int>(devices.size());
  std::vector<std::vector<std::vector<float>>> got(devices.size());
  on_every_rank(comms, [&](int rank, kiln::Communicator& comm) {
    EXPECT_EQ(comm.rank(), rank);
    EXPECT_EQ(comm.world_size(), world);
    EXPECT_TRUE(comm.overlaps_compute());
    for (std::int64_t n : {1, 7, 33, 1000, 1 << 20}) {
      std::vector<float> v(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = value(rank, i);
      kiln::Tensor sum = kiln::Tensor::from_vector(v, kiln::Shape{n}, comm.device());
      kiln::Tensor mean = sum.clone(), max = sum.clone();
      comm.all_reduce_async(sum, kiln::CollectiveOp::sum);
      comm.all_reduce_async(mean, kiln::CollectiveOp::mean);
      comm.all_reduce_async(max, kiln::CollectiveOp::max);
      comm.wait_all();
      got[static_cast<std::size_t>(rank)].push_back(sum.to_vector<float>());
      got[static_cast<std::size_t>(rank)].push_back(mean.to_vector<float>());
      got[static_cast<std::size_t>(rank)].push_back(max.to_vector<float>());
    }
    double host[2] = {1.0 + rank, static_cast<double>(rank)};
    comm.all_reduce_host(host, kiln::CollectiveOp::sum);
    EXPECT_EQ(host[0], world + world * (world - 1) / 2.0);
    comm.barrier();
  });
  for (int rank = 0; rank < world; ++rank) {
    std::size_t k = 0;
    for (std::int64_t n : {1, 7, 33, 1000, 1 << 20}) {
      std::vector<float> sum(static_cast<std::size_t>(n)), mean(sum), max(sum);
      for (std::int64_t i = 0; i < n; ++i) {
        float total = 0;
        for (int r = 0; r < world; ++r) total += value(r, i);
        sum[static_cast<std::size_t>(i)] = total;
        mean[static_cast<std::size_t>(i)] = total / static_cast<float>(world);
        max[static_cast<std::size_t>(i)] = value(world - 1, i);
      }
      const auto& mine = got[static_cast<std::size_t>(rank)];
      ASSERT_EQ(mine.size(), 15u);
      EXPECT_TRUE(kiln::testing::all_close(mine[k++], sum, 1e-6f, 0)) << "sum, n = " << n;
      EXPECT_TRUE(kiln::testing::all_close(mine[k++], mean, 1e-6f, 0)) << "mean, n = " << n;
      EXPECT_EQ(mine[k++], max) << "max, n = " << n;
    }
  }
}

TEST(NcclCommunicator, BroadcastCopiesTheRootsTensorEverywhere) {
  KILN_REQUIRE_GPU();
  auto comms = kiln::make_nccl_communicators(every_gpu(), {.timeout_s = 60});
  const int root = static_cast<int>(comms.size()) - 1;
  on_every_rank(comms, [&](int rank, kiln::Communicator& comm) {
    std::vector<float> v(33);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = value(rank, static_cast<std::int64_t>(i));
    kiln::Tensor x = kiln::Tensor::from_vector(v, kiln::Shape{33}, comm.device());
    kiln::Tensor* one[] = {&x};
    comm.broadcast(one, root);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = value(root, static_cast<std::int64_t>(i));
    EXPECT_EQ(x.to_vector<float>(), v);
  });
}

TEST(NcclCommunicator, TrainingWithGpus0EqualsPlainSingleGpuTraining) {
  KILN_REQUIRE_GPU();
  auto run = [](const std::string& name) {
    kiln::TrainAppOptions o = kiln::testing::small_article_run("mlp:784-64-10", 2048, 128);
    o.workers = 1;
    o.distributed = "none";
    o.checkpoint_dir = kiln::testing::fresh_checkpoint_dir("nccl_" + name);
    return o;
  };
  std::ostringstream out;
  kiln::TrainAppOptions plain = run("plain");
  plain.device = "gpu:0";
  const kiln::TrainResult a = kiln::train(plain, out);
  kiln::TrainAppOptions nccl = run("gpus0");
  nccl.gpus = {0};
  nccl.bucket_mb = 0.05;  // several buckets, each started as backward produces it
  const kiln::TrainResult b = kiln::train(nccl, out);
  ASSERT_EQ(a.epochs.size(), 2u);
  ASSERT_EQ(b.epochs.size(), 2u);
  EXPECT_EQ(b.world_size, 1);
  EXPECT_NEAR(b.epochs.back().train_loss, a.epochs.back().train_loss, 1e-5);
  EXPECT_NEAR(b.epochs.back().test_accuracy, a.epochs.back().test_accuracy, 1e-6);
  const auto wa = kiln::load_safetensors(plain.checkpoint_dir + "/model.safetensors");
  const auto wb = kiln::load_safetensors(nccl.checkpoint_dir + "/model.safetensors");
  ASSERT_EQ(wa.tensors.size(), wb.tensors.size());
  for (const auto& [name, tensor] : wa.tensors)
    EXPECT_TRUE(kiln::testing::all_close(wb.tensors.at(name), tensor, 1e-5f, 1e-6f)) << name;
}

TEST(NcclCommunicator, TrainingOnEveryGpuFollowsOneGpuAtTheSameGlobalBatch) {
  KILN_REQUIRE_GPU();
  const std::vector<int> devices = every_gpu();
  if (devices.size() < 2) GTEST_SKIP() << "one GPU: the multi-GPU comparison needs two or more";
  kiln::TrainAppOptions o;
  o.model = "mlp:784-64-10";
  o.data = "article";
  o.samples = 2048;
  o.epochs = 1;
  o.batch_size = 64 * static_cast<std::int64_t>(devices.size());
  o.schedule = "constant";
  o.quiet = true;
  o.distributed = "none";
  std::ostringstream out;
  kiln::TrainAppOptions one = o;
  one.device = "gpu:0";
  one.checkpoint_dir = kiln::testing::fresh_checkpoint_dir("nccl_one");
  kiln::TrainAppOptions all = o;
  all.gpus = devices;
  all.checkpoint_dir = kiln::testing::fresh_checkpoint_dir("nccl_all");
  kiln::train(one, out);
  kiln::train(all, out);
  const auto wa = kiln::load_safetensors(one.checkpoint_dir + "/model.safetensors");
  const auto wb = kiln::load_safetensors(all.checkpoint_dir + "/model.safetensors");
  for (const auto& [name, tensor] : wa.tensors)
    EXPECT_TRUE(kiln::testing::all_close(wb.tensors.at(name), tensor, 1e-4f, 1e-5f)) << name;
}
