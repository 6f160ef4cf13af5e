// DataLoader on the CPU: every index once per epoch, the same bits whatever num_workers, errors
// that name the sample, clean stops, and the measurements the profiler reads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <set>

#include "kiln/core/memory.h"
#include "kiln/data/article_dataset.h"
#include "kiln/data/data_loader.h"
#include "kiln/data/sampler.h"
#include "tests/data/test_datasets.h"

using kiln::DataLoader;
using kiln::DataLoaderOptions;
using kiln::testing::IndexDataset;

namespace {

struct Epoch {
  std::vector<float> x;
  std::vector<std::int32_t> y;
  std::vector<std::int64_t> rows;
};

Epoch run_epoch(DataLoader& loader) {
  Epoch e;
  std::int64_t expected_index = 0;
  for (const kiln::Batch& b : loader) {
    EXPECT_EQ(b.index, expected_index++);
    const auto x = b.x.to_vector<float>();
    const auto y = b.y.to_vector<std::int32_t>();
    e.x.insert(e.x.end(), x.begin(), x.end());
    e.y.insert(e.y.end(), y.begin(), y.end());
    e.rows.push_back(b.x.size(0));
  }
  return e;
}

// The index an IndexDataset sample spells out in its first feature.
std::vector<std::int64_t> indices_of(const Epoch& e) {
  std::vector<std::int64_t> out;
  for (std::size_t k = 0; k < e.x.size(); k += 4)
    out.push_back(static_cast<std::int64_t>(e.x[k]) / 10);
  return out;
}

struct Case {
  std::int64_t batch;
  bool drop_last;
  int workers;
};

class EveryIndexOnce : public ::testing::TestWithParam<Case> {};

}  // namespace

TEST_P(EveryIndexOnce, DeliversEveryIndexExactlyOncePerEpoch) {
  const Case c = GetParam();
  const std::int64_t n = 1000;
  DataLoader loader(
      std::make_shared<IndexDataset>(n),
      DataLoaderOptions{
          .batch_size = c.batch, .seed = 3, .drop_last = c.drop_last, .num_workers = c.workers});
  const std::int64_t full = n / c.batch,
                     expected_batches = c.drop_last ? full : (n + c.batch - 1) / c.batch;
  EXPECT_EQ(loader.batches_per_epoch(), expected_batches);
  for (int epoch = 0; epoch < 2; ++epoch) {
    const Epoch e = run_epoch(loader);
    ASSERT_EQ(static_cast<std::int64_t>(e.rows.size()), expected_batches);
    for (std::size_t b = 0; b + 1 < e.rows.size(); ++b) EXPECT_EQ(e.rows[b], c.batch);
    const auto seen = indices_of(e);
    // The loader's order is the sampler's, cut to whole batches with drop_last.
    auto expected = kiln::Sampler(n, {.seed = 3}).indices(epoch);
    expected.resize(static_cast<std::size_t>(c.drop_last ? full * c.batch : n));
    EXPECT_EQ(seen, expected);
    EXPECT_EQ(std::set<std::int64_t>(seen.begin(), seen.end()).size(), seen.size()) << "no repeats";
    for (std::size_t k = 0; k < seen.size(); ++k) EXPECT_EQ(e.y[k], seen[k] % 10);
  }
}

INSTANTIATE_TEST_SUITE_P(DataLoader, EveryIndexOnce, ::testing::ValuesIn([] {
                           std::vector<Case> cases;
                           for (std::int64_t batch : {1, 7, 64})
                             for (bool drop_last : {false, true})
                               for (int workers : {0, 1, 4, 8})
                                 cases.push_back({batch, drop_last, workers});
                           return cases;
                         }()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return "Batch" + std::to_string(info.param.batch) +
                                  (info.param.drop_last ? "DropLast" : "KeepLast") + "Workers" +
                                  std::to_string(info.param.workers);
                         });

TEST(DataLoader, SameSeedGivesBitIdenticalBatchesWithAnyWorkerCount) {
  auto data = std::make_shared<kiln::ArticleDataset>(
      kiln::ArticleOptions{.size = 777, .features = 33, .seed = 8});
  std::vector<Epoch> reference;
  for (int workers : {0, 1, 4, 8}) {
    DataLoader loader(
        data,
        DataLoaderOptions{.batch_size = 10, .seed = 11, .num_workers = workers, .prefetch = 3});
    for (int epoch = 0; epoch < 2; ++epoch) {
      const Epoch e = run_epoch(loader);
      if (workers == 0) {
        reference.push_back(e);
        continue;
      }
      const Epoch& r = reference[static_cast<std::size_t>(epoch)];
      ASSERT_EQ(e.x.size(), r.x.size());
      EXPECT_EQ(std::memcmp(e.x.data(), r.x.data(), e.x.size() * sizeof(float)), 0)
          << workers << " workers, epoch " << epoch;
      EXPECT_EQ(e.y, r.y) << workers << " workers, epoch " << epoch;
    }
  }
}

TEST(DataLoader, EpochsGiveDifferentOrdersAndSetEpochReplaysOne) {
  DataLoader loader(std::make_shared<IndexDataset>(100),
                    DataLoaderOptions{.batch_size = 7, .num_workers = 2});
  EXPECT_EQ(loader.epoch(), 0);
  const auto first = indices_of(run_epoch(loader));
  EXPECT_EQ(loader.epoch(), 1);
  const auto second = indices_of(run_epoch(loader));
  EXPECT_NE(first, second);
  loader.set_epoch(0);
  EXPECT_EQ(indices_of(run_epoch(loader)), first);
  EXPECT_EQ(indices_of(run_epoch(loader)), second);
}

TEST(DataLoader, BatchesHaveTheSampleShapeAndTheLastOneIsShort) {
  DataLoader loader(std::make_shared<IndexDataset>(33),
                    DataLoaderOptions{.batch_size = 8, .num_workers = 1});
  std::vector<kiln::Shape> shapes;
  for (const kiln::Batch& b : loader) {
    EXPECT_EQ(b.x.dtype(), kiln::DType::f32);
    EXPECT_EQ(b.y.dtype(), kiln::DType::i32);
    EXPECT_EQ(b.x.device(), kiln::Device::cpu());
    EXPECT_EQ(b.y.shape(), (kiln::Shape{b.x.size(0)}));
    shapes.push_back(b.x.shape());
  }
  ASSERT_EQ(shapes.size(), 5u);
  EXPECT_EQ(shapes[0], (kiln::Shape{8, 1, 2, 2}));
  EXPECT_EQ(shapes[4], (kiln::Shape{1, 1, 2, 2}));
}

TEST(DataLoader, FloatTargetsComeAsBatchesOfTheTargetShapeWithAnyWorkerCount) {
  for (int workers : {0, 3}) {
    DataLoader loader(std::make_shared<kiln::testing::RegressionDataset>(13),
                      DataLoaderOptions{.batch_size = 4, .seed = 5, .num_workers = workers});
    std::set<std::int64_t> seen;
    for (const kiln::Batch& b : loader) {
      ASSERT_EQ(b.y.dtype(), kiln::DType::f32);
      ASSERT_EQ(b.y.shape(), (kiln::Shape{b.x.size(0), 2}));
      const auto x = b.x.to_vector<float>();
      const auto y = b.y.to_vector<float>();
      for (std::int64_t r = 0; r < b.x.size(0); ++r) {
        const auto index = static_cast<std::int64_t>(x[static_cast<std::size_t>(r * 4)]) / 10;
        EXPECT_EQ(y[static_cast<std::size_t>(2 * r)], static_cast<float>(index) + 0.5f);
        EXPECT_EQ(y[static_cast<std::size_t>(2 * r + 1)], -static_cast<float>(index));
        seen.insert(index);
      }
    }
    EXPECT_EQ(seen.size(), 13u) << workers << " workers";
  }
}

TEST(DataLoader, AnEmptyDatasetGivesNoBatches) {
  DataLoader loader(std::make_shared<IndexDataset>(0), DataLoaderOptions{.num_workers = 2});
  EXPECT_EQ(loader.batches_per_epoch(), 0);
  EXPECT_TRUE(loader.begin() == loader.end());
}

TEST(DataLoader, AWorkerExceptionReachesTheConsumerNamingTheIndex) {
  for (int workers : {0, 1, 4}) {
    auto data = std::make_shared<kiln::testing::FailingDataset>(200, 123);
    DataLoader loader(
        data, DataLoaderOptions{.batch_size = 10, .shuffle = false, .num_workers = workers});
    std::int64_t delivered = 0;
    try {
      for (const kiln::Batch& b : loader) delivered += b.x.size(0);
      FAIL() << "no exception with " << workers << " workers";
    } catch (const kiln::Error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("sample 123"), std::string::npos) << message;
      EXPECT_NE(message.find("/data/broken.bin"), std::string::npos) << message;
      EXPECT_NE(message.find("cannot decode record 123"), std::string::npos) << message;
    }
    EXPECT_EQ(delivered, 120) << "the batches before the failing one arrive, in order";
    // The loader is usable again; the same sample fails the same way.
    EXPECT_THROW(for (const kiln::Batch& b : loader)(void) b, kiln::Error);
  }
}

TEST(DataLoader, ALabelOutOfRangeIsReportedWithTheSample) {
  auto data = std::make_shared<kiln::testing::FailingDataset>(50, 17, /*label_out_of_range=*/true);
  DataLoader loader(data, DataLoaderOptions{.batch_size = 4, .num_workers = 2});
  try {
    for (const kiln::Batch& b : loader) (void)b;
    FAIL() << "no exception";
  } catch (const kiln::Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("sample 17"), std::string::npos) << message;
    EXPECT_NE(message.find("label 10 is outside [0, 10)"), std::string::npos) << message;
  }
}

TEST(DataLoader, StoppingMidEpochJoinsCleanlyAndANewEpochStartsWhole) {
  auto data = std::make_shared<kiln::testing::SlowDataset>(400, std::chrono::microseconds(200));
  for (int workers : {0, 1, 8}) {
    {
      DataLoader loader(data, DataLoaderOptions{.batch_size = 5, .num_workers = workers});
      int seen = 0;
      for (const kiln::Batch& b : loader) {
        (void)b;
        if (++seen == 3) break;
      }
      auto it = loader.begin();  // abandons the epoch above mid-way
      auto stale = it;
      ++it;
      EXPECT_EQ((*it).index, 1);
      loader.set_epoch(5);
      const auto order = indices_of(run_epoch(loader));
      EXPECT_TRUE(stale == loader.end()) << "an iterator of a stopped epoch is finished";
      EXPECT_EQ(order, kiln::Sampler(400, {}).indices(5));
      for (const kiln::Batch& b : loader) {
        (void)b;
        break;
      }
    }  // destroyed mid-epoch, workers busy: must join, not hang or crash
  }
}

TEST(DataLoader, StatsCountBatchesWaitAndWorkerTime) {
  auto data = std::make_shared<kiln::testing::SlowDataset>(60, std::chrono::microseconds(300));
  DataLoader loader(data, DataLoaderOptions{.batch_size = 6, .num_workers = 2});
  run_epoch(loader);
  kiln::LoaderStats s = loader.stats();
  EXPECT_EQ(s.batches, 10);
  EXPECT_EQ(s.samples, 60);
  ASSERT_EQ(s.worker_busy_ms.size(), 2u);
  EXPECT_GT(s.worker_busy_ms[0] + s.worker_busy_ms[1], 60 * 0.3 * 0.9);
  EXPECT_GE(s.wait_ms, 0.0);
  EXPECT_EQ(s.queue_capacity, 5);
  EXPECT_GE(s.mean_queue_occupancy, 0.0);
  EXPECT_LE(s.mean_queue_occupancy, 5.0);
  loader.reset_stats();
  s = loader.stats();
  EXPECT_EQ(s.batches, 0);
  EXPECT_EQ(s.wait_ms, 0.0);
  EXPECT_EQ(s.worker_busy_ms[0], 0.0);

  DataLoader inline_loader(data, DataLoaderOptions{.batch_size = 6});
  run_epoch(inline_loader);
  s = inline_loader.stats();
  ASSERT_EQ(s.worker_busy_ms.size(), 1u);
  EXPECT_EQ(s.queue_capacity, 1);
  EXPECT_EQ(s.mean_queue_occupancy, 0.0)
      << "loading in the calling thread, nothing is ever ready ahead";
  EXPECT_DOUBLE_EQ(s.wait_ms, s.worker_busy_ms[0]) << "the calling thread waits while it loads";
}

TEST(DataLoader, AllocatesNoTensorMemoryPerStep) {
  DataLoader loader(std::make_shared<IndexDataset>(500),
                    DataLoaderOptions{.batch_size = 16, .num_workers = 3});
  run_epoch(loader);
  const std::int64_t before = kiln::memory_stats(kiln::Device::cpu()).raw_allocations;
  std::int64_t batches = 0;
  for (const kiln::Batch& b : loader) batches += b.x.size(0) > 0;
  EXPECT_EQ(batches, loader.batches_per_epoch());
  EXPECT_EQ(kiln::memory_stats(kiln::Device::cpu()).raw_allocations, before);
}

TEST(DataLoader, ShardedLoadersCoverTheDatasetAcrossRanks) {
  for (int world : {2, 3}) {
    std::vector<std::int64_t> all;
    for (int rank = 0; rank < world; ++rank) {
      DataLoader loader(
          std::make_shared<IndexDataset>(300),
          DataLoaderOptions{.batch_size = 7, .num_workers = 2, .rank = rank, .world_size = world});
      EXPECT_EQ(loader.samples_per_epoch(), 300 / world);
      const auto part = indices_of(run_epoch(loader));
      all.insert(all.end(), part.begin(), part.end());
    }
    std::sort(all.begin(), all.end());
    std::vector<std::int64_t> expected(300);
    std::iota(expected.begin(), expected.end(), std::int64_t{0});
    EXPECT_EQ(all, expected) << "world_size " << world;
  }
}

TEST(DataLoader, RejectsBadOptions) {
  auto data = std::make_shared<IndexDataset>(10);
  EXPECT_THROW(DataLoader(nullptr), kiln::Error);
  EXPECT_THROW(DataLoader(data, DataLoaderOptions{.batch_size = 0}), kiln::Error);
  EXPECT_THROW(DataLoader(data, DataLoaderOptions{.num_workers = -1}), kiln::Error);
  EXPECT_THROW(DataLoader(data, DataLoaderOptions{.prefetch = 0}), kiln::Error);
  EXPECT_THROW(DataLoader(data, DataLoaderOptions{.rank = 3, .world_size = 2}), kiln::Error);
}

TEST(DataLoader, PinMemoryWithoutCudaGivesAClearError) {
  if (kiln::cuda_available()) GTEST_SKIP() << "a CUDA device is present: pinned memory works here";
  try {
    DataLoader loader(std::make_shared<IndexDataset>(10),
                      DataLoaderOptions{.num_workers = 2, .pin_memory = true});
    FAIL() << "no exception";
  } catch (const kiln::Error& e) {
    EXPECT_NE(std::string(e.what()).find("pin_memory needs CUDA"), std::string::npos) << e.what();
  }
}

TEST(DataLoader, ACudaTargetWithoutCudaGivesAClearError) {
  if (kiln::cuda_available()) GTEST_SKIP() << "a CUDA device is present";
  try {
    DataLoader loader(std::make_shared<IndexDataset>(10),
                      DataLoaderOptions{.device = kiln::Device::cuda(0)});
    FAIL() << "no exception";
  } catch (const kiln::Error& e) {
    EXPECT_NE(std::string(e.what()).find("needs CUDA"), std::string::npos) << e.what();
  }
}

// Resuming inside an epoch: begin_at(b) gives the batches begin() gives from b on, with their
// indices, and loads none before it; in an order kept in memory and in a computed one.
TEST(DataLoader, BeginAtGivesTheBatchesBeginGivesFromThere) {
  for (int workers : {0, 2}) {
    DataLoader loader(std::make_shared<IndexDataset>(100),
                      DataLoaderOptions{.batch_size = 7, .seed = 4, .num_workers = workers});
    loader.set_epoch(3);
    const Epoch whole = run_epoch(loader);
    for (std::int64_t first : {0, 1, 5, 14}) {
      loader.set_epoch(3);
      std::vector<float> x;
      std::int64_t expected = first;
      for (auto it = loader.begin_at(first); it != loader.end(); ++it) {
        EXPECT_EQ(it->index, expected++);
        const auto v = it->x.to_vector<float>();
        x.insert(x.end(), v.begin(), v.end());
      }
      EXPECT_EQ(expected, std::max<std::int64_t>(first, 15)) << "15 batches in all";
      const std::vector<float> tail(whole.x.begin() + std::min<std::int64_t>(first * 7, 100) * 4,
                                    whole.x.end());
      EXPECT_EQ(x, tail) << "from batch " << first << ", " << workers << " workers";
    }
    EXPECT_TRUE(loader.begin_at(15) == loader.end());
    EXPECT_THROW(loader.begin_at(-1), kiln::Error);
  }
}
