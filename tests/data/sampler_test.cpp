// Sampler: orders are permutations fixed by (seed, epoch), uniform, and sharded as PyTorch's
// DistributedSampler shards them.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "kiln/core/error.h"
#include "kiln/data/random_stream.h"
#include "kiln/data/sampler.h"

using kiln::Sampler;
using kiln::SamplerOptions;

namespace {
bool is_permutation_of_range(std::vector<std::int64_t> v, std::int64_t n) {
  if (static_cast<std::int64_t>(v.size()) != n) return false;
  std::sort(v.begin(), v.end());
  for (std::int64_t i = 0; i < n; ++i)
    if (v[static_cast<std::size_t>(i)] != i) return false;
  return true;
}
}  // namespace

TEST(Sampler, ShuffledOrderIsAPermutationForOddSizes) {
  for (std::int64_t n : {0, 1, 2, 7, 33, 1000}) {
    const Sampler sampler(n, SamplerOptions{.seed = 5});
    EXPECT_EQ(sampler.size(), n);
    EXPECT_TRUE(is_permutation_of_range(sampler.indices(3), n)) << "n = " << n;
  }
}

TEST(Sampler, SameSeedAndEpochGiveTheSameOrder) {
  const Sampler a(1000, SamplerOptions{.seed = 42});
  const Sampler b(1000, SamplerOptions{.seed = 42});
  EXPECT_EQ(a.indices(7), b.indices(7));
}

TEST(Sampler, DifferentEpochsAndSeedsGiveDifferentOrders) {
  const Sampler a(1000, SamplerOptions{.seed = 42});
  const Sampler b(1000, SamplerOptions{.seed = 43});
  EXPECT_NE(a.indices(0), a.indices(1));
  EXPECT_NE(a.indices(0), b.indices(0));
}

TEST(Sampler, WithoutShuffleTheOrderIsSequential) {
  const Sampler sampler(33, SamplerOptions{.shuffle = false});
  std::vector<std::int64_t> expected(33);
  std::iota(expected.begin(), expected.end(), std::int64_t{0});
  EXPECT_EQ(sampler.indices(0), expected);
  EXPECT_EQ(sampler.indices(9), expected);
}

// Fisher-Yates done right puts every index first equally often (a classic off-by-one, drawing
// j in [0, i) instead of [0, i], would never leave an index in place).
TEST(Sampler, EveryIndexIsFirstEquallyOften) {
  const std::int64_t n = 5, epochs = 20000;
  const Sampler sampler(n, SamplerOptions{.seed = 1});
  std::vector<int> first(n, 0), stays(n, 0);
  for (std::int64_t e = 0; e < epochs; ++e) {
    const auto order = sampler.indices(e);
    ++first[static_cast<std::size_t>(order[0])];
    for (std::int64_t i = 0; i < n; ++i) stays[static_cast<std::size_t>(i)] += order[i] == i;
  }
  // Expected 4000 each, standard deviation about 57: allow 5 sigma.
  for (std::int64_t i = 0; i < n; ++i) {
    EXPECT_NEAR(first[static_cast<std::size_t>(i)], epochs / n, 285) << "index " << i;
    EXPECT_NEAR(stays[static_cast<std::size_t>(i)], epochs / n, 285) << "index " << i;
  }
}

TEST(Sampler, RandomStreamBelowStaysInRange) {
  kiln::RandomStream rng(3, kiln::RandomPurpose::shuffle, 0, 0);
  for (std::uint64_t n : {1ull, 2ull, 7ull, 1000ull, 1ull << 40})
    for (int k = 0; k < 1000; ++k) EXPECT_LT(rng.next_below(n), n);
}

TEST(Sampler, ShardsCoverEveryIndexOnceAcrossTwoAndThreeRanksWhenSizesDivide) {
  for (int world : {2, 3}) {
    const std::int64_t n = 996;  // divisible by 2 and 3
    std::vector<std::int64_t> all;
    for (int rank = 0; rank < world; ++rank) {
      const Sampler sampler(n, SamplerOptions{.seed = 9, .rank = rank, .world_size = world});
      const auto part = sampler.indices(4);
      EXPECT_EQ(static_cast<std::int64_t>(part.size()), n / world);
      all.insert(all.end(), part.begin(), part.end());
    }
    EXPECT_TRUE(is_permutation_of_range(all, n)) << "world_size " << world;
  }
}

TEST(Sampler, PaddingRepeatsTheStartOfTheOrderSoRanksGetEqualCounts) {
  const std::int64_t n = 1001;
  for (int world : {2, 3}) {
    std::map<std::int64_t, int> seen;
    const auto order = Sampler(n, SamplerOptions{.seed = 9}).indices(4);
    for (int rank = 0; rank < world; ++rank) {
      const Sampler sampler(n, SamplerOptions{.seed = 9, .rank = rank, .world_size = world});
      EXPECT_EQ(sampler.size(), (n + world - 1) / world);
      for (std::int64_t i : sampler.indices(4)) ++seen[i];
    }
    EXPECT_EQ(static_cast<std::int64_t>(seen.size()), n) << "every index at least once";
    const std::int64_t padding = (n + world - 1) / world * world - n;
    for (std::int64_t k = 0; k < n; ++k) {
      const std::int64_t index = order[static_cast<std::size_t>(k)];
      EXPECT_EQ(seen[index], k < padding ? 2 : 1) << "index " << index << ", world " << world;
    }
  }
}

TEST(Sampler, DropLastDropsTheTailOfTheOrderSoRanksGetEqualCounts) {
  const std::int64_t n = 1001;
  for (int world : {2, 3}) {
    const auto order = Sampler(n, SamplerOptions{.seed = 9}).indices(4);
    std::vector<std::int64_t> all;
    for (int rank = 0; rank < world; ++rank) {
      const Sampler sampler(
          n, SamplerOptions{.seed = 9, .rank = rank, .world_size = world, .drop_last = true});
      EXPECT_EQ(sampler.size(), n / world);
      const auto part = sampler.indices(4);
      all.insert(all.end(), part.begin(), part.end());
    }
    std::sort(all.begin(), all.end());
    std::vector<std::int64_t> kept(order.begin(), order.begin() + n / world * world);
    std::sort(kept.begin(), kept.end());
    EXPECT_EQ(all, kept) << "each index at most once: the order's tail is dropped";
  }
}

TEST(Sampler, RejectsABadRankOrWorldSize) {
  EXPECT_THROW(Sampler(10, SamplerOptions{.rank = 2, .world_size = 2}), kiln::Error);
  EXPECT_THROW(Sampler(10, SamplerOptions{.rank = -1, .world_size = 2}), kiln::Error);
  EXPECT_THROW(Sampler(10, SamplerOptions{.world_size = 0}), kiln::Error);
  EXPECT_THROW(Sampler(-1), kiln::Error);
}

// Epochs past SamplerOptions::shuffle_in_memory_up_to: the keyed permutation, tested here at
// small sizes by setting the limit to 0.
namespace {
SamplerOptions computed(SamplerOptions o) {
  o.shuffle_in_memory_up_to = 0;
  return o;
}
}  // namespace

TEST(Sampler, SmallEpochsKeepTheirFisherYatesOrder) {
  const Sampler sampler(1000, SamplerOptions{.seed = 42});
  EXPECT_FALSE(sampler.computes_order());
  std::vector<std::int64_t> expected;
  kiln::shuffled_order(1000, 42, 3, expected);
  EXPECT_EQ(sampler.indices(3), expected);
  EXPECT_EQ(kiln::kShuffleInMemoryUpTo, std::int64_t{1} << 20);
}

TEST(Sampler, AComputedOrderIsAPermutationForOddSizes) {
  for (std::int64_t n : {0, 1, 2, 7, 33, 1000, 4097}) {
    const Sampler sampler(n, computed({.seed = 5}));
    EXPECT_EQ(sampler.computes_order(), n > 0);
    EXPECT_TRUE(is_permutation_of_range(sampler.indices(3), n)) << "n = " << n;
  }
}

TEST(Sampler, AComputedOrderDependsOnlyOnSeedAndEpoch) {
  const Sampler a(1000, computed({.seed = 42})), b(1000, computed({.seed = 42}));
  const Sampler c(1000, computed({.seed = 43}));
  EXPECT_EQ(a.indices(7), b.indices(7));
  EXPECT_NE(a.indices(0), a.indices(1));
  EXPECT_NE(a.indices(0), c.indices(0));
  EXPECT_NE(a.indices(0), Sampler(1000, SamplerOptions{.seed = 42}).indices(0));
}

// A Feistel network over a tiny domain makes only even permutations, so uniformity is tested at a
// size with a 10-bit domain (the computed order serves only epochs past 2^20, 20 bits or more):
// the first index falls in each fifth of the range equally often, and an order fixes one index
// on average, as a uniform permutation does.
TEST(Sampler, AComputedOrderLooksUniform) {
  const std::int64_t n = 1000, epochs = 2000;
  const Sampler sampler(n, computed({.seed = 1}));
  std::vector<int> first(5, 0);
  std::int64_t fixed = 0;
  for (std::int64_t e = 0; e < epochs; ++e) {
    const kiln::EpochOrder order = sampler.order(e);
    ++first[static_cast<std::size_t>(order[0] / 200)];
    for (std::int64_t i = 0; i < n; ++i) fixed += order[i] == i;
  }
  for (int bin = 0; bin < 5; ++bin)  // 400 expected, sigma 18: 5 sigma
    EXPECT_NEAR(first[static_cast<std::size_t>(bin)], epochs / 5, 90) << "fifth " << bin;
  EXPECT_NEAR(static_cast<double>(fixed) / epochs, 1.0, 0.12);  // sigma 0.022
}

TEST(Sampler, AComputedOrderShardsAndPadsAsTheOrderInMemoryDoes) {
  const std::int64_t n = 1001;
  for (int world : {2, 3}) {
    for (bool drop_last : {false, true}) {
      const auto order = Sampler(n, computed({.seed = 9})).indices(4);
      for (int rank = 0; rank < world; ++rank) {
        const Sampler sampler(
            n, computed({.seed = 9, .rank = rank, .world_size = world, .drop_last = drop_last}));
        const auto part = sampler.indices(4);
        ASSERT_EQ(std::ssize(part), drop_last ? n / world : (n + world - 1) / world);
        for (std::size_t k = 0; k < part.size(); ++k)
          EXPECT_EQ(part[k], order[(rank + k * world) % n]) << "rank " << rank << ", k " << k;
      }
    }
  }
}

// 2^40 indices would take 8 TB as a table; the computed order reads any position at once.
TEST(Sampler, AnEpochOfATrillionIndicesIsReadWithoutATable) {
  const std::int64_t n = std::int64_t{1} << 40;
  const Sampler sampler(n, SamplerOptions{.seed = 3, .rank = 1, .world_size = 2});
  ASSERT_TRUE(sampler.computes_order());
  const kiln::EpochOrder order = sampler.order(0);
  EXPECT_EQ(order.size(), n / 2);
  std::set<std::int64_t> seen;
  for (std::int64_t k : {std::int64_t{0}, std::int64_t{1}, n / 4, n / 2 - 1}) {
    const std::int64_t index = order[k];
    EXPECT_GE(index, 0);
    EXPECT_LT(index, n);
    seen.insert(index);
  }
  EXPECT_EQ(seen.size(), 4u) << "distinct positions give distinct indices";
}
