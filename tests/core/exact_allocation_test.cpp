// The caching allocator's exact policy (KILN_DEVICE_ALLOCATOR=exact, the memcheck stage's), over a
// recording host allocator: every request is one raw allocation of exactly its bytes, nothing is
// served from a cache, and each block goes back to the raw allocator as soon as it may: at once,
// after its uses on other streams, after a capture, when its graph's pool is released.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <vector>

#include "kiln/core/caching_allocator.h"
#include "tests/support/error_testing.h"

namespace {

using kiln::AllocationPolicy;
using kiln::CachingAllocator;

const void* const kStream = reinterpret_cast<const void*>(0x10);
const void* const kOtherStream = reinterpret_cast<const void*>(0x20);

// A host "device" that records the size of every raw allocation and which blocks it holds, with
// events that pass when the test says so and a capture the test switches on and off.
struct RecordingDevice {
  std::vector<std::size_t> sizes;  // every raw allocation's size, in order
  std::map<void*, std::size_t> live;
  int frees = 0;
  bool capturing = false;  // may_release_now is false meanwhile, as during a graph capture
  CachingAllocator::PoolId pool = CachingAllocator::kSharedPool;
  std::map<int, bool> passed;
  int next_event = 1;

  CachingAllocator::RawAllocator hooks() {
    CachingAllocator::RawAllocator raw{[this](std::size_t bytes) -> void* {
                                         void* p = std::malloc(bytes);
                                         sizes.push_back(bytes);
                                         live[p] = bytes;
                                         return p;
                                       },
                                       [this](void* p) {
                                         ++frees;
                                         live.erase(p);
                                         std::free(p);
                                       }};
    raw.may_release_now = [this] { return !capturing; };
    raw.record_event = [this](const void*) -> void* {
      passed[next_event] = false;
      return reinterpret_cast<void*>(static_cast<std::intptr_t>(next_event++));
    };
    raw.event_done = [this](void* e) {
      return passed.at(static_cast<int>(reinterpret_cast<std::intptr_t>(e)));
    };
    raw.release_event = [](void*) {};
    raw.current_pool = [this] { return pool; };
    return raw;
  }
};

}  // namespace

TEST(ExactAllocation, EveryRequestIsOneRawAllocationOfExactlyItsBytes) {
  RecordingDevice device;
  CachingAllocator exact(device.hooks(), AllocationPolicy::exact);
  EXPECT_EQ(exact.policy(), AllocationPolicy::exact);
  // Odd sizes that the caching policy rounds up to 512 B or 2 MiB; 0 asks for one byte.
  const std::vector<std::size_t> requests = {33 * 4, 1, 0, 513, (1u << 20) + 7, 132};
  std::vector<void*> blocks;
  for (std::size_t bytes : requests) blocks.push_back(exact.allocate(bytes, kStream));
  EXPECT_EQ(device.sizes, (std::vector<std::size_t>{132, 1, 1, 513, (1u << 20) + 7, 132}));
  EXPECT_EQ(exact.stats().in_use, 132u + 1 + 1 + 513 + (1u << 20) + 7 + 132);
  for (void* p : blocks) exact.release(p);
  EXPECT_TRUE(device.live.empty());
  EXPECT_EQ(device.frees, 6);
  EXPECT_EQ(exact.stats().reserved, 0u);
}

TEST(ExactAllocation, AReleasedBlockIsNeverServedAgainFromACache) {
  RecordingDevice device;
  CachingAllocator exact(device.hooks(), AllocationPolicy::exact);
  // The pattern the caching policy serves with one raw call: the same size, freed and asked again.
  for (int step = 0; step < 5; ++step) exact.release(exact.allocate(4000, kStream));
  EXPECT_EQ(device.sizes.size(), 5u);
  EXPECT_EQ(device.frees, 5);
  // The same sequence under the caching policy, for contrast: one raw allocation, none freed.
  RecordingDevice cached_device;
  CachingAllocator caching(cached_device.hooks());
  for (int step = 0; step < 5; ++step) caching.release(caching.allocate(4000, kStream));
  EXPECT_EQ(cached_device.sizes, (std::vector<std::size_t>{4096}));
  EXPECT_EQ(cached_device.frees, 0);
}

TEST(ExactAllocation, ABlockUsedOnAnotherStreamGoesBackOnlyAfterThatUseHasPassed) {
  RecordingDevice device;
  CachingAllocator exact(device.hooks(), AllocationPolicy::exact);
  void* block = exact.allocate(100, kStream);
  exact.record_stream(block, kOtherStream);  // a copy on another stream reads it
  exact.release(block);
  EXPECT_EQ(device.frees, 0);  // that stream may still read it
  void* other = exact.allocate(100, kStream);
  EXPECT_NE(other, block);
  EXPECT_EQ(device.frees, 0);
  device.passed[1] = true;
  exact.release(other);  // any later call returns what has passed
  EXPECT_EQ(device.frees, 2);
  EXPECT_TRUE(device.live.empty());
}

TEST(ExactAllocation, BlocksFreedDuringACaptureStayUntilTheirGraphsPoolIsReleased) {
  RecordingDevice device;
  CachingAllocator exact(device.hooks(), AllocationPolicy::exact);
  void* before = exact.allocate(64, kStream);
  device.capturing = true;
  device.pool = 3;
  void* scratch = exact.allocate(64, kStream);
  exact.release(scratch);  // the recorded kernels write it at every replay
  exact.release(before);   // freed while capturing: the recorded work may read it too
  void* again = exact.allocate(64, kStream);
  EXPECT_NE(again, scratch);  // nothing reused, not even inside the capture
  exact.release(again);
  device.capturing = false;
  device.pool = CachingAllocator::kSharedPool;
  void* eager = exact.allocate(8, kStream);
  exact.release(eager);
  EXPECT_EQ(device.frees, 1);  // only the eager block: the graph's replays still use the others
  exact.empty_cache();
  EXPECT_EQ(device.frees, 1);
  exact.release_pool(3);  // the graph is gone
  EXPECT_EQ(device.frees, 4);
  EXPECT_TRUE(device.live.empty());
}

TEST(ExactAllocation, ABlockReleasedWhileReleasingIsNotAllowedGoesBackAtTheNextCall) {
  RecordingDevice device;
  CachingAllocator exact(device.hooks(), AllocationPolicy::exact);
  void* block = exact.allocate(20, kStream);
  device.capturing = true;  // another thread records a graph: cudaFree would break it
  exact.release(block);
  EXPECT_EQ(device.frees, 0);
  device.capturing = false;
  void* next = exact.allocate(20, kStream);
  EXPECT_EQ(device.frees, 1);
  exact.release(next);
  EXPECT_EQ(device.frees, 2);
}

TEST(ExactAllocation, ThePolicyIsNamedCachingOrExact) {
  EXPECT_EQ(kiln::parse_allocation_policy(nullptr), AllocationPolicy::caching);
  EXPECT_EQ(kiln::parse_allocation_policy(""), AllocationPolicy::caching);
  EXPECT_EQ(kiln::parse_allocation_policy("caching"), AllocationPolicy::caching);
  EXPECT_EQ(kiln::parse_allocation_policy("exact"), AllocationPolicy::exact);
  const std::string message =
      kiln::testing::error_message([] { (void)kiln::parse_allocation_policy("Exact"); });
  EXPECT_NE(message.find("KILN_DEVICE_ALLOCATOR='Exact': expected caching or exact"),
            std::string::npos)
      << message;
}
