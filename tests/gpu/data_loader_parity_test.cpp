// DataLoader with a CUDA target: the same bits as the CPU loader with pinned and pageable slots
// and any number of workers, buffers never overwritten under queued work, nothing allocated per
// step, and clean stops with copies in flight.
#include <gtest/gtest.h>

#include <cstring>

#include "kiln/core/memory.h"
#include "kiln/core/ops.h"
#include "kiln/data/article_dataset.h"
#include "kiln/data/data_loader.h"
#include "tests/data/test_datasets.h"
#include "tests/support/tensor_testing.h"

using kiln::DataLoader;
using kiln::DataLoaderOptions;
using kiln::Device;
using kiln::Tensor;

namespace {
std::shared_ptr<kiln::ArticleDataset> article(std::int64_t size) {
  return std::make_shared<kiln::ArticleDataset>(
      kiln::ArticleOptions{.size = size, .features = 97, .seed = 5});
}
}  // namespace

TEST(DataLoaderGpu, DeliversTheSameBitsAsTheCpuLoader) {
  KILN_REQUIRE_GPU();
  auto data = article(1000);
  for (bool pin : {false, true})
    for (int workers : {0, 1, 4}) {
      DataLoaderOptions options{.batch_size = 33, .seed = 7, .num_workers = workers};
      DataLoader cpu(data, options);
      options.pin_memory = pin;
      options.device = Device::cuda(0);
      DataLoader gpu(data, options);
      for (int epoch = 0; epoch < 2; ++epoch) {
        std::vector<std::vector<float>> expected_x;
        std::vector<std::vector<std::int32_t>> expected_y;
        for (const kiln::Batch& b : cpu) {
          expected_x.push_back(b.x.to_vector<float>());
          expected_y.push_back(b.y.to_vector<std::int32_t>());
        }
        std::size_t k = 0;
        for (const kiln::Batch& b : gpu) {
          ASSERT_LT(k, expected_x.size());
          EXPECT_EQ(b.x.device(), Device::cuda(0));
          EXPECT_EQ(b.x.size(0), static_cast<std::int64_t>(expected_y[k].size()));
          const auto x = b.x.to_vector<float>();  // ordered after the copy on the current stream
          EXPECT_EQ(std::memcmp(x.data(), expected_x[k].data(), x.size() * sizeof(float)), 0)
              << "batch " << k << ", pin " << pin << ", " << workers << " workers";
          EXPECT_EQ(b.y.to_vector<std::int32_t>(), expected_y[k]);
          ++k;
        }
        EXPECT_EQ(k, expected_x.size());
      }
    }
}

// Float targets (B, 2) travel through the pinned slots and the device ring like labels.
TEST(DataLoaderGpu, DeliversFloatTargetsAsTheCpuLoader) {
  KILN_REQUIRE_GPU();
  auto data = std::make_shared<kiln::testing::RegressionDataset>(101);
  DataLoaderOptions options{.batch_size = 16, .seed = 3, .num_workers = 2};
  DataLoader cpu(data, options);
  options.pin_memory = true;
  options.device = Device::cuda(0);
  DataLoader gpu(data, options);
  std::vector<std::vector<float>> expected;
  for (const kiln::Batch& b : cpu) expected.push_back(b.y.to_vector<float>());
  std::size_t k = 0;
  for (const kiln::Batch& b : gpu) {
    ASSERT_LT(k, expected.size());
    EXPECT_EQ(b.y.device(), Device::cuda(0));
    EXPECT_EQ(b.y.dtype(), kiln::DType::f32);
    EXPECT_EQ(b.y.shape(), (kiln::Shape{b.x.size(0), 2}));
    EXPECT_EQ(b.y.to_vector<float>(), expected[k]) << "batch " << k;
    ++k;
  }
  EXPECT_EQ(k, expected.size());
}

// The consumer queues slow work on every batch and never waits on the host; if the loader
// overwrote a device buffer before that work ran, the accumulated sum would differ.
TEST(DataLoaderGpu, BuffersAreNotOverwrittenWhileQueuedWorkStillReadsThem) {
  KILN_REQUIRE_GPU();
  const Device gpu = Device::cuda(0);
  auto data = article(64 * 40);
  DataLoader loader(data, DataLoaderOptions{.batch_size = 64,
                                            .drop_last = true,
                                            .num_workers = 4,
                                            .pin_memory = true,
                                            .device = gpu});
  Tensor a = kiln::testing::random_tensor({1024, 1024}, 1, -1.0f, 1.0f, gpu);
  Tensor slow = Tensor::empty({1024, 1024}, kiln::DType::f32, gpu);
  Tensor acc = Tensor::zeros({64, 97}, kiln::DType::f32, gpu);
  for (const kiln::Batch& b : loader) {
    for (int k = 0; k < 8; ++k) kiln::gemm(a, false, a, false, slow);  // keeps the stream busy
    kiln::axpy(1.0f, b.x, acc);
  }
  std::vector<float> expected(64 * 97, 0.0f);
  DataLoader cpu(data, DataLoaderOptions{.batch_size = 64, .drop_last = true});
  for (const kiln::Batch& b : cpu) {
    const auto x = b.x.to_vector<float>();
    for (std::size_t i = 0; i < x.size(); ++i) expected[i] += x[i];
  }
  EXPECT_TRUE(kiln::testing::all_close(acc.to_vector<float>(), expected, 1e-6f, 1e-5f));
}

TEST(DataLoaderGpu, AllocatesNoDeviceOrPinnedMemoryPerStep) {
  KILN_REQUIRE_GPU();
  const Device gpu = Device::cuda(0);
  DataLoader loader(
      article(2000),
      DataLoaderOptions{.batch_size = 50, .num_workers = 2, .pin_memory = true, .device = gpu});
  for (const kiln::Batch& b : loader) (void)b;
  const auto device_before = kiln::memory_stats(gpu).raw_allocations;
  const auto pinned_before = kiln::pinned_memory_stats().raw_allocations;
  const auto in_use_before = kiln::memory_stats(gpu).in_use;
  for (const kiln::Batch& b : loader) (void)b;
  EXPECT_EQ(kiln::memory_stats(gpu).raw_allocations, device_before);
  EXPECT_EQ(kiln::pinned_memory_stats().raw_allocations, pinned_before);
  EXPECT_EQ(kiln::memory_stats(gpu).in_use, in_use_before);
}

TEST(DataLoaderGpu, StoppingMidEpochWithCopiesInFlightIsClean) {
  KILN_REQUIRE_GPU();
  const Device gpu = Device::cuda(0);
  auto data = article(3000);
  for (int workers : {0, 4}) {
    DataLoader loader(
        data, DataLoaderOptions{
                  .batch_size = 100, .num_workers = workers, .pin_memory = true, .device = gpu});
    int seen = 0;
    for (const kiln::Batch& b : loader) {
      Tensor copy = b.x.clone();
      if (++seen == 3) break;
    }
    loader.set_epoch(0);
    std::int64_t rows = 0;
    for (const kiln::Batch& b : loader) rows += b.x.size(0);
    EXPECT_EQ(rows, 3000);
    for (const kiln::Batch& b : loader) {
      (void)b;
      break;
    }
  }  // destroyed mid-epoch, with copies and steps still queued
}

TEST(DataLoaderGpu, StatsCountDeviceBatches) {
  KILN_REQUIRE_GPU();
  DataLoader loader(
      article(500),
      DataLoaderOptions{.batch_size = 50, .num_workers = 2, .device = Device::cuda(0)});
  for (const kiln::Batch& b : loader) (void)b;
  const kiln::LoaderStats s = loader.stats();
  EXPECT_EQ(s.batches, 10);
  EXPECT_EQ(s.samples, 500);
  EXPECT_EQ(s.queue_capacity, 5 + 1) << "host slots plus the device buffer copied ahead";
}
