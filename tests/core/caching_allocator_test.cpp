// The caching allocator's bookkeeping, over a counting host allocator: the same logic serves
// cudaMalloc on a GPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>

#include "kiln/core/caching_allocator.h"

namespace {

struct CountingRaw {
  int allocations = 0;
  int frees = 0;
  std::size_t limit = SIZE_MAX;  // bytes the "device" holds
  std::size_t held = 0;
  std::map<void*, std::size_t> live;

  kiln::CachingAllocator::RawAllocator make() {
    return {[this](std::size_t bytes) -> void* {
              if (held + bytes > limit) return nullptr;
              void* p = std::malloc(bytes);
              ++allocations;
              held += bytes;
              live[p] = bytes;
              return p;
            },
            [this](void* p) {
              ++frees;
              held -= live.at(p);
              live.erase(p);
              std::free(p);
            }};
  }
};

const void* const kStreamA = reinterpret_cast<const void*>(0x10);
const void* const kStreamB = reinterpret_cast<const void*>(0x20);

}  // namespace

TEST(CachingAllocator, RoundsSmallRequestsTo512BytesAndLargeTo2MiB) {
  using A = kiln::CachingAllocator;
  EXPECT_EQ(A::round_size(0), 512u);
  EXPECT_EQ(A::round_size(1), 512u);
  EXPECT_EQ(A::round_size(513), 1024u);
  EXPECT_EQ(A::round_size((1u << 20) - 1), 1u << 20);
  EXPECT_EQ(A::round_size((1u << 20) + 1), 2u << 20);
  EXPECT_EQ(A::round_size((5u << 20) + 7), 6u << 20);
}

TEST(CachingAllocator, ReusesFreedBlocksSoSteadyStateMakesNoRawCalls) {
  CountingRaw raw;
  kiln::CachingAllocator cache(raw.make());
  // A "training step": the same sizes allocated and freed again and again.
  for (int step = 0; step < 50; ++step) {
    void* a = cache.allocate(1000 * 4, kStreamA);
    void* b = cache.allocate(256 * 1024 * 4, kStreamA);
    void* c = cache.allocate(7, kStreamA);
    ASSERT_NE(a, nullptr);
    cache.release(b);
    cache.release(a);
    cache.release(c);
  }
  EXPECT_EQ(raw.allocations, 3);
  EXPECT_EQ(raw.frees, 0);
  const kiln::MemoryStats s = cache.stats();
  EXPECT_EQ(s.in_use, 0u);
  EXPECT_EQ(s.raw_allocations, 3u);
  EXPECT_EQ(s.reserved, 4096u + (2u << 20) + 512u);
  EXPECT_EQ(s.peak_in_use, s.reserved);
}

TEST(CachingAllocator, KeepsBlocksToTheStreamTheyWereFreedOn) {
  CountingRaw raw;
  kiln::CachingAllocator cache(raw.make());
  void* a = cache.allocate(4096, kStreamA);
  cache.release(a);
  void* b = cache.allocate(4096, kStreamB);  // may not reuse stream A's block
  EXPECT_NE(a, b);
  void* c = cache.allocate(4096, kStreamA);
  EXPECT_EQ(a, c);
  EXPECT_EQ(raw.allocations, 2);
  cache.release(b);
  cache.release(c);
}

TEST(CachingAllocator, ServesASmallerRequestFromABlockAtMostTwiceItsSize) {
  CountingRaw raw;
  kiln::CachingAllocator cache(raw.make());
  void* big = cache.allocate(3000, kStreamA);  // 3072-byte block
  cache.release(big);
  void* half = cache.allocate(2000, kStreamA);  // 2048 rounded: 3072 <= 2 * 2048
  EXPECT_EQ(half, big);
  EXPECT_EQ(cache.stats().in_use, 3072u);  // counted at the block's size
  void* tiny = cache.allocate(100, kStreamA);  // 512: too wasteful to take 3072
  EXPECT_NE(tiny, big);
  cache.release(half);
  cache.release(tiny);
}

TEST(CachingAllocator, EmptiesItsCacheAndRetriesWhenTheRawAllocatorIsFull) {
  CountingRaw raw;
  raw.limit = 5u << 20;
  kiln::CachingAllocator cache(raw.make());
  void* a = cache.allocate(4u << 20, kStreamA);
  cache.release(a);  // cached on stream A: 4 of the 5 MiB held
  void* b = cache.allocate(2u << 20, kStreamB);  // fits only once the cached block is returned
  EXPECT_NE(b, nullptr);
  EXPECT_EQ(raw.frees, 1);
  EXPECT_EQ(cache.allocate(6u << 20, kStreamB), nullptr);  // does not fit at all: the caller reports it
  cache.release(b);
  cache.empty_cache();
  EXPECT_EQ(cache.stats().reserved, 0u);
  EXPECT_TRUE(raw.live.empty());
}

TEST(CachingAllocator, KeepsItsCacheWhileReleasingIsNotAllowed) {
  CountingRaw raw;
  raw.limit = 5u << 20;
  bool recording = true;  // as while a CUDA graph is recorded
  auto make = raw.make();
  make.may_release_now = [&] { return !recording; };
  kiln::CachingAllocator cache(std::move(make));
  void* a = cache.allocate(4u << 20, kStreamA);
  cache.release(a);
  EXPECT_EQ(cache.allocate(2u << 20, kStreamB), nullptr);  // would fit only by freeing the cache
  EXPECT_EQ(raw.frees, 0);
  EXPECT_EQ(cache.stats().reserved, 4u << 20);
  recording = false;
  void* b = cache.allocate(2u << 20, kStreamB);
  EXPECT_NE(b, nullptr);
  EXPECT_EQ(raw.frees, 1);
  cache.release(b);
}

TEST(CachingAllocator, ReportsPeaksUntilReset) {
  CountingRaw raw;
  kiln::CachingAllocator cache(raw.make());
  void* a = cache.allocate(512u << 10, kStreamA);
  void* b = cache.allocate(512u << 10, kStreamA);
  cache.release(a);
  cache.release(b);
  EXPECT_EQ(cache.stats().peak_in_use, 1u << 20);
  cache.reset_peak();
  EXPECT_EQ(cache.stats().peak_in_use, 0u);
  cache.empty_cache();
  EXPECT_EQ(raw.frees, 2);
}
