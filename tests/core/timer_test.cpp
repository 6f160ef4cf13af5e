#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "kiln/core/error.h"
#include "kiln/core/parallel.h"
#include "kiln/core/timer.h"

TEST(RegionTimer, AccumulatesNamedRegionsOnTheCpu) {
  kiln::RegionTimer timer("forward", kiln::Device::cpu());
  EXPECT_EQ(timer.name(), "forward");
  for (int i = 0; i < 3; ++i) {
    kiln::ScopedRegion region(timer);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_EQ(timer.count(), 3);
  EXPECT_GE(timer.total_ms(), 6.0);  // slept at least 2 ms three times
  timer.reset();
  EXPECT_EQ(timer.count(), 0);
  EXPECT_EQ(timer.total_ms(), 0.0);
}

TEST(RegionTimer, HoldsABoundedNumberOfEventsWhenNoTotalIsRead) {
  kiln::RegionTimer timer("copy", kiln::Device::cpu());
  constexpr int kRegions = 2500;  // past the cap twice
  for (int i = 0; i < kRegions; ++i) {
    kiln::ScopedRegion region(timer);
    std::this_thread::sleep_for(std::chrono::microseconds(1));
  }
  EXPECT_LE(timer.held_pairs(), kiln::RegionTimer::kMaxPending);
  EXPECT_EQ(timer.count(), kRegions);
  EXPECT_GE(timer.total_ms(), kRegions * 0.001);  // the folded regions still count
}

TEST(RegionTimer, RejectsUnbalancedStartAndStop) {
  kiln::RegionTimer timer("step", kiln::Device::cpu());
  EXPECT_THROW(timer.stop(), kiln::Error);
  timer.start();
  EXPECT_THROW(timer.start(), kiln::Error);
}

TEST(Parallel, ThreadCountIsSettableAtRunTime) {
  const int before = kiln::num_threads();
  kiln::set_num_threads(1);
  EXPECT_EQ(kiln::num_threads(), 1);
  kiln::set_num_threads(before);
  EXPECT_EQ(kiln::num_threads(), before);
  EXPECT_THROW(kiln::set_num_threads(0), kiln::Error);
}
