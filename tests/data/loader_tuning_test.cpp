// The loader tuning (data/loader_tuning.h): the choice on recorded rates, the candidates, and a
// tuned loader that delivers the same epochs as one built with the chosen setting.
#include <gtest/gtest.h>

#include <vector>

#include "kiln/core/error.h"
#include "kiln/data/data_loader.h"
#include "kiln/data/loader_tuning.h"
#include "tests/data/test_datasets.h"

using kiln::DataLoader;
using kiln::DataLoaderOptions;
using kiln::LoaderSetting;
using kiln::LoaderTrial;

namespace {

std::vector<LoaderTrial> recorded(std::initializer_list<std::pair<int, double>> rates,
                                  bool pinned = false) {
  std::vector<LoaderTrial> trials;
  for (const auto& [workers, rate] : rates) trials.push_back({{workers, pinned}, rate, 0.0});
  return trials;
}

LoaderSetting chosen(const std::vector<LoaderTrial>& trials, double noise = 0.05) {
  return trials[kiln::choose_loader_trial(trials, noise)].setting;
}

// Every sample index of an epoch in delivery order (IndexDataset's x[0] is index * 10).
std::vector<float> epoch_order(DataLoader& loader) {
  std::vector<float> order;
  for (const kiln::Batch& b : loader) {
    const std::vector<float> x = b.x.to_vector<float>();
    for (std::size_t i = 0; i < x.size(); i += 4) order.push_back(x[i]);
  }
  return order;
}

}  // namespace

TEST(LoaderTuning, ChoosesTheFewestWorkersWithinTheNoiseOfTheFastest) {
  EXPECT_EQ(chosen(recorded({{0, 100}, {1, 180}, {2, 185}})).workers,
            1);  // 180 is within 5 % of 185
  EXPECT_EQ(chosen(recorded({{0, 100}, {1, 150}, {2, 185}})).workers, 2);  // 150 is not
  EXPECT_EQ(chosen(recorded({{0, 100}, {1, 150}, {2, 185}}), 0.25).workers, 1);
  EXPECT_EQ(chosen(recorded({{0, 300}, {1, 290}, {2, 310}, {4, 200}})).workers, 0);
  EXPECT_EQ(chosen(recorded({{4, 500}, {2, 100}})).workers, 4);  // the order tried does not matter
}

TEST(LoaderTuning, PrefersUnpinnedMemoryWhenPinningIsWithinNoise) {
  std::vector<LoaderTrial> trials = recorded({{0, 100}, {1, 200}});
  trials.push_back({{1, true}, 205, 0.0});
  EXPECT_EQ(chosen(trials), (LoaderSetting{1, false}));
  trials.push_back({{1, true}, 400, 0.0});
  EXPECT_EQ(chosen(trials), (LoaderSetting{1, true}));
}

TEST(LoaderTuning, RefusesToChooseFromNoTrials) {
  EXPECT_THROW(kiln::choose_loader_trial({}, 0.05), kiln::Error);
}

TEST(LoaderTuning, TriesWorkerCountsDoublingUpToTheCores) {
  EXPECT_EQ(kiln::worker_candidates(1), (std::vector<int>{0, 1}));
  EXPECT_EQ(kiln::worker_candidates(2), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(kiln::worker_candidates(6), (std::vector<int>{0, 1, 2, 4, 6}));
  EXPECT_EQ(kiln::worker_candidates(16), (std::vector<int>{0, 1, 2, 4, 8, 16}));
}

TEST(LoaderTuning, TriesPinnedMemoryOnlyForACudaTarget) {
  const kiln::LoaderTuningOptions both{.workers = true, .pin_memory = true};
  const DataLoaderOptions on_cpu;
  const std::vector<LoaderSetting> cpu = kiln::loader_candidates(both, on_cpu, 2);
  EXPECT_EQ(cpu, (std::vector<LoaderSetting>{{0, false}, {1, false}, {2, false}}));
  const DataLoaderOptions on_gpu{.device = kiln::Device::cuda(0)};
  EXPECT_EQ(kiln::loader_candidates(both, on_gpu, 1).size(), 4u);
  // Workers fixed: only the loader's own count, with pinning tried.
  const DataLoaderOptions three_workers{.num_workers = 3, .device = kiln::Device::cuda(0)};
  EXPECT_EQ(kiln::loader_candidates({.workers = false, .pin_memory = true}, three_workers, 8),
            (std::vector<LoaderSetting>{{3, false}, {3, true}}));
}

TEST(LoaderTuning, LeavesTheLoaderAtTheChoiceWithItsNextEpochUnchanged) {
  auto data = std::make_shared<kiln::testing::IndexDataset>(97);
  DataLoader reference(data, DataLoaderOptions{.batch_size = 8, .seed = 5});
  reference.set_epoch(3);
  const std::vector<float> expected = epoch_order(reference);

  DataLoader tuned(data, DataLoaderOptions{.batch_size = 8, .seed = 5, .num_workers = 2});
  tuned.set_epoch(3);
  std::int64_t consumed = 0;
  const kiln::LoaderTuning tuning =
      kiln::tune_loader(tuned, {.worker_counts = {0, 1, 3}, .batches = 4},
                        {[&](const kiln::Batch&) { ++consumed; }, nullptr}, 2);
  ASSERT_EQ(tuning.trials.size(), 3u);
  EXPECT_EQ(tuning.batches, 4);
  EXPECT_EQ(consumed, 2 * 3 * 4);  // two rounds of three settings, 4 batches each
  EXPECT_EQ(tuned.options().num_workers, tuning.chosen.setting.workers);
  EXPECT_EQ(tuning.chosen.setting,
            tuning.trials[kiln::choose_loader_trial(tuning.trials, 0.05)].setting);
  EXPECT_EQ(tuned.epoch(), 3);
  EXPECT_EQ(epoch_order(tuned), expected);
  EXPECT_NE(kiln::describe(tuning).find("the best of 2 tries of 4 batches"), std::string::npos)
      << kiln::describe(tuning);
}

TEST(LoaderTuning, SetWorkersKeepsTheBatchesAndTheEpoch) {
  auto data = std::make_shared<kiln::testing::IndexDataset>(50);
  DataLoader loader(data, DataLoaderOptions{.batch_size = 7, .seed = 2});
  loader.set_epoch(1);
  const std::vector<float> expected = epoch_order(loader);
  loader.set_epoch(1);
  loader.set_workers(3, false);
  EXPECT_EQ(loader.options().num_workers, 3);
  EXPECT_EQ(loader.epoch(), 1);
  EXPECT_EQ(epoch_order(loader), expected);
  EXPECT_THROW(loader.set_workers(-1, false), kiln::Error);
  EXPECT_EQ(loader.options().num_workers, 3);
}

TEST(LoaderTuning, RejectsBadOptions) {
  auto data = std::make_shared<kiln::testing::IndexDataset>(20);
  DataLoader loader(data, DataLoaderOptions{.batch_size = 4});
  const kiln::LoaderConsumer nothing{[](const kiln::Batch&) {}, nullptr};
  EXPECT_THROW(kiln::tune_loader(loader, {.batches = 0}, nothing, 2), kiln::Error);
  EXPECT_THROW(kiln::tune_loader(loader, {.noise = 1.5}, nothing, 2), kiln::Error);
  EXPECT_THROW(kiln::tune_loader(loader, {.rounds = 0}, nothing, 2), kiln::Error);
  EXPECT_THROW(kiln::tune_loader(loader, {.worker_counts = {-2}}, nothing, 2), kiln::Error);
}
