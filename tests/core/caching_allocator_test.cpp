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
  EXPECT_EQ(cache.stats().in_use, 3072u);      // counted at the block's size
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
  cache.release(a);                              // cached on stream A: 4 of the 5 MiB held
  void* b = cache.allocate(2u << 20, kStreamB);  // fits only once the cached block is returned
  EXPECT_NE(b, nullptr);
  EXPECT_EQ(raw.frees, 1);
  EXPECT_EQ(cache.allocate(6u << 20, kStreamB),
            nullptr);  // does not fit at all: the caller reports it
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

namespace {

// Events of a fake device: each recorded on a stream, passed when the test says so.
struct FakeEvents {
  struct Record {
    const void* stream;
    bool passed = false;
  };
  std::map<int, Record> events;  // by token
  int next = 1;
  int released = 0;

  void install(kiln::CachingAllocator::RawAllocator& raw) {
    raw.record_event = [this](const void* stream) -> void* {
      events[next] = {stream};
      return reinterpret_cast<void*>(static_cast<std::intptr_t>(next++));
    };
    raw.event_done = [this](void* e) {
      return events.at(static_cast<int>(reinterpret_cast<std::intptr_t>(e))).passed;
    };
    raw.release_event = [this](void*) { ++released; };
  }
  void pass_all(const void* stream) {
    for (auto& [token, record] : events)
      if (record.stream == stream) record.passed = true;
  }
};

const void* const kStreamNccl = reinterpret_cast<const void*>(0x30);

// An allocator over CountingRaw with FakeEvents for its other-stream uses.
struct CacheWithEvents {
  CountingRaw raw;
  FakeEvents events;
  kiln::CachingAllocator cache{[this] {
    auto hooks = raw.make();
    events.install(hooks);
    return hooks;
  }()};
};

}  // namespace

TEST(CachingAllocator, ABlockUsedOnAnotherStreamWaitsForThatStreamBeforeReuse) {
  CacheWithEvents t;
  auto& [raw, events, cache] = t;
  void* gradients = cache.allocate(4096, kStreamA);
  cache.record_stream(gradients, kStreamNccl);  // an all-reduce queued on the NCCL stream reads it
  ASSERT_EQ(events.events.size(), 1u);
  EXPECT_EQ(events.events.begin()->second.stream, kStreamNccl);  // recorded behind that use
  cache.release(gradients);
  void* next = cache.allocate(4096, kStreamA);  // the collective may still run: not this block
  EXPECT_NE(next, gradients);
  cache.release(next);
  events.pass_all(kStreamNccl);
  void* later = cache.allocate(4096, kStreamA);  // now the NCCL stream has passed that use
  void* other = cache.allocate(4096, kStreamA);
  EXPECT_TRUE((later == gradients && other == next) || (later == next && other == gradients));
  EXPECT_EQ(events.released, 1);
  EXPECT_EQ(raw.allocations, 2);
  cache.release(later);
  cache.release(other);
}

TEST(CachingAllocator, OnlyTheLastUseOnEachOtherStreamIsWaitedFor) {
  CacheWithEvents t;
  auto& [raw, events, cache] = t;
  char* block = static_cast<char*>(cache.allocate(8192, kStreamA));
  cache.record_stream(block + 4096, kStreamB);  // a view's data, copied on a copy stream
  events.pass_all(kStreamB);                    // that copy has run
  cache.record_stream(block + 100, kStreamB);   // a second copy, still queued
  cache.record_stream(block, kStreamA);         // its own stream: nothing to wait for
  int outside = 0;
  cache.record_stream(&outside, kStreamB);  // not a block of this allocator: ignored
  ASSERT_EQ(events.events.size(), 2u);
  EXPECT_EQ(events.released, 1);  // the first use's event, superseded by the second
  cache.release(block);
  // Emptying the cache keeps the waiting block: the raw allocator may not take it back yet.
  cache.empty_cache();
  EXPECT_EQ(raw.frees, 0);
  void* second = cache.allocate(8192, kStreamA);
  EXPECT_NE(second, block);
  cache.release(second);
  events.pass_all(kStreamB);
  cache.empty_cache();
  EXPECT_EQ(raw.frees, 2);  // the waiting block too, now that stream B has passed its use
  EXPECT_EQ(events.released, 2);
}

TEST(CachingAllocator, ABlockUsedOnlyOnItsOwnStreamIsReusedAtOnceWithoutEvents) {
  CacheWithEvents t;
  auto& [raw, events, cache] = t;
  void* a = cache.allocate(4096, kStreamA);
  cache.record_stream(a, kStreamA);
  cache.release(a);
  EXPECT_EQ(cache.allocate(4096, kStreamA), a);
  EXPECT_TRUE(events.events.empty());
  cache.release(a);
}

namespace {

// An allocator whose calling thread "captures" into pool `pool` while it is not the shared one,
// and whose stream `capturing` is being captured.
struct CacheWithPools {
  CountingRaw raw;
  FakeEvents events;
  kiln::CachingAllocator::PoolId pool = kiln::CachingAllocator::kSharedPool;
  const void* capturing = nullptr;
  kiln::CachingAllocator cache{[this] {
    auto hooks = raw.make();
    events.install(hooks);
    hooks.current_pool = [this] { return pool; };
    hooks.is_capturing = [this](const void* stream) { return stream == capturing; };
    return hooks;
  }()};
};

}  // namespace

TEST(CachingAllocator, ACapturesBlocksAreReusedOnlyByThatCaptureUntilItsPoolIsReleased) {
  CacheWithPools t;
  t.pool = 5;  // capturing
  void* scratch = t.cache.allocate(4096, kStreamA);
  t.cache.release(scratch);  // the recorded kernels still write it at every replay
  EXPECT_EQ(t.cache.allocate(4096, kStreamA), scratch);  // later work of the same capture may
  t.cache.release(scratch);
  t.pool = kiln::CachingAllocator::kSharedPool;  // the capture ended; the graph is kept
  void* other = t.cache.allocate(4096, kStreamA);
  EXPECT_NE(other, scratch);
  t.cache.release(other);
  t.cache.release_pool(5);  // the graph is gone
  void* a = t.cache.allocate(4096, kStreamA);
  void* b = t.cache.allocate(4096, kStreamA);
  EXPECT_TRUE((a == scratch && b == other) || (a == other && b == scratch));
  EXPECT_EQ(t.raw.allocations, 2);
  t.cache.release(a);
  t.cache.release(b);
}

TEST(CachingAllocator, ABlockFreedDuringACaptureStaysWithThatCapture) {
  CacheWithPools t;
  void* input = t.cache.allocate(4096, kStreamA);  // allocated before the capture
  t.pool = 9;
  t.cache.release(input);  // freed while capturing: the recorded work may read it at replays
  t.pool = kiln::CachingAllocator::kSharedPool;
  void* next = t.cache.allocate(4096, kStreamA);
  EXPECT_NE(next, input);
  t.cache.release(next);
  t.cache.release_pool(9);
  void* again = t.cache.allocate(4096, kStreamA);
  void* again2 = t.cache.allocate(4096, kStreamA);
  EXPECT_TRUE(again == input || again2 == input);
  t.cache.release(again);
  t.cache.release(again2);
}

TEST(CachingAllocator, ACaptureTakesACachedSharedBlockAndKeepsIt) {
  CacheWithPools t;
  void* cached = t.cache.allocate(4096, kStreamA);
  t.cache.release(cached);
  t.pool = 2;
  EXPECT_EQ(t.cache.allocate(4096, kStreamA), cached);  // its earlier uses precede the capture
  EXPECT_EQ(t.raw.allocations, 1);
  t.cache.release(cached);
  t.pool = kiln::CachingAllocator::kSharedPool;
  void* eager = t.cache.allocate(4096, kStreamA);
  EXPECT_NE(eager, cached);
  EXPECT_EQ(t.raw.allocations, 2);
  t.cache.release(eager);
}

TEST(CachingAllocator, EmptyingTheCacheKeepsAPrivatePoolsBlocks) {
  CacheWithPools t;
  t.pool = 4;
  void* scratch = t.cache.allocate(4096, kStreamA);
  t.cache.release(scratch);
  t.pool = kiln::CachingAllocator::kSharedPool;
  t.cache.empty_cache();
  EXPECT_EQ(t.raw.frees, 0);  // a replay would write freed device memory
  t.cache.release_pool(4);
  t.cache.empty_cache();
  EXPECT_EQ(t.raw.frees, 1);
  EXPECT_EQ(t.cache.stats().reserved, 0u);
}

TEST(CachingAllocator, ABlockStillLiveWhenItsPoolIsReleasedJoinsTheSharedPoolWhenFreed) {
  CacheWithPools t;
  t.pool = 6;
  void* output = t.cache.allocate(4096, kStreamA);  // the graph's output, kept by the caller
  t.pool = kiln::CachingAllocator::kSharedPool;
  t.cache.release_pool(6);
  t.cache.release(output);
  EXPECT_EQ(t.cache.allocate(4096, kStreamA), output);
  t.cache.release(output);
}

TEST(CachingAllocator, RecordStreamIsSkippedOnAStreamBeingCaptured) {
  CacheWithPools t;
  t.capturing = kStreamB;
  void* block = t.cache.allocate(4096, kStreamA);
  t.cache.record_stream(block, kStreamB);  // would record an event into the graph
  EXPECT_TRUE(t.events.events.empty());
  t.cache.record_stream(block, kStreamNccl);  // a stream not being captured: recorded
  EXPECT_EQ(t.events.events.size(), 1u);
  t.cache.release(block);
  t.events.pass_all(kStreamNccl);
  EXPECT_EQ(t.cache.allocate(4096, kStreamA), block);
  t.cache.release(block);
}
