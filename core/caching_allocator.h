// A caching allocator over any raw allocator (cudaMalloc in practice): freed blocks go to free
// lists bucketed by (stream, rounded size) and are handed out again, so steady-state training
// makes no calls to the raw allocator. Blocks are reused only on the stream they were freed on,
// which keeps reuse in stream order without extra synchronisation. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

namespace kiln {

struct MemoryStats {
  std::size_t in_use = 0;  // bytes in blocks handed out (rounded sizes)
  std::size_t peak_in_use = 0;
  std::size_t reserved = 0;  // bytes held from the raw allocator: in use + cached
  std::size_t peak_reserved = 0;
  std::uint64_t raw_allocations = 0;  // calls to the raw allocator (cudaMalloc)
  std::uint64_t raw_frees = 0;
};

// AllocationPolicy::exact (KILN_DEVICE_ALLOCATOR=exact) turns the cache off for the sanitizers,
// so that compute-sanitizer's memcheck sees an overrun of a few bytes and a use after release.
// caching: rounded sizes, freed blocks reused (the default). exact: every allocation is a raw one
// of exactly the bytes asked for (1 for 0), never served from the cache, and a released block
// goes back to the raw allocator at once, or as soon as it may (after the uses on other streams
// have passed, after a capture, when its graph's private pool is released).
enum class AllocationPolicy : unsigned char { caching, exact };

// "caching" or "exact" (null or empty: caching); throws kiln::Error naming KILN_DEVICE_ALLOCATOR
// and the two otherwise.
AllocationPolicy parse_allocation_policy(const char* name);
// KILN_DEVICE_ALLOCATOR's policy, read once; the first read of exact logs a warning that says so
// (the sanitizer stage's log shows which allocator the process ran with).
AllocationPolicy device_allocation_policy();

// A CUDA graph's capture allocates from a private pool (as PyTorch's graph pools): its blocks,
// and any block freed while it captures, go back only to that pool, which every replay still
// writes, until the graph releases the pool.
class CachingAllocator {
 public:
  using StreamKey = const void*;
  // A private pool's number (a capture's serial); kSharedPool is every other allocation's.
  using PoolId = std::uint64_t;
  static constexpr PoolId kSharedPool = 0;
  struct RawAllocator {
    std::function<void*(std::size_t)> allocate;  // returns nullptr when out of memory
    std::function<void(void*)> release;
    // Whether cached blocks may go back now (null: always). Not while a CUDA graph is being
    // recorded: cudaFree waits for the device, which breaks the recording.
    std::function<bool()> may_release_now = nullptr;
    // For blocks used on other streams (null where record_stream is never called): an event
    // recorded now on a stream, whether that stream has passed it, and its return. They must
    // not throw (release runs in destructors); a hook that cannot record waits for the stream
    // instead and returns nullptr, which counts as passed.
    std::function<void*(StreamKey)> record_event = nullptr;
    std::function<bool(void*)> event_done = nullptr;
    std::function<void(void*)> release_event = nullptr;
    // The pool that allocations and releases made now by the calling thread belong to: a graph
    // capture's private pool while that thread captures (null: always the shared pool).
    std::function<PoolId()> current_pool = nullptr;
    // Whether `stream` is being captured into a graph (null: never). record_stream is skipped
    // then: the event would be recorded into the graph instead of marking the stream, and the
    // capture's own pool already keeps what its work uses.
    std::function<bool(StreamKey)> is_capturing = nullptr;
  };

  explicit CachingAllocator(RawAllocator raw, AllocationPolicy policy = AllocationPolicy::caching);
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // Returns a block of at least `bytes` for use on `stream`, or nullptr when the raw allocator
  // fails even after the cache was emptied, or fails when the cache may not be emptied now (the
  // caller turns that into an error with context).
  void* allocate(std::size_t bytes, StreamKey stream);
  void release(void* ptr);
  // A block also used on another stream (an NCCL collective, a copy or side stream) is held back
  // at release until each such stream has passed its last use, marked by an event recorded when
  // that use was queued (not at the free, as PyTorch's recordStream does: by then that stream may
  // be destroyed).
  // Marks that the work just queued on `stream` uses the live block holding `ptr` (any address
  // in it: a view's data): once released, the block is reused only after `stream` has passed
  // this point. Call it after queuing each such use; the block's own stream and addresses in no
  // live block are ignored.
  void record_stream(void* ptr, StreamKey stream);
  // Returns every cached (free) block of the shared pool to the raw allocator, unless it may not
  // release now. A private pool's blocks stay: a graph's replays still use them.
  void empty_cache();
  // Ends private pool `pool` (its graph is gone): its cached blocks join the shared pool, and so
  // do its live blocks when they are released.
  void release_pool(PoolId pool);
  MemoryStats stats() const;
  void reset_peak();

  AllocationPolicy policy() const { return policy_; }

  // Bucket size: multiples of 512 B below 1 MiB, of 2 MiB above.
  static std::size_t round_size(std::size_t bytes);

 private:
  struct Block {
    std::size_t size;
    StreamKey stream;
    PoolId pool;
    // The last use on each other stream (record_stream): that stream and an event after it.
    std::vector<std::pair<StreamKey, void*>> uses;
  };
  struct Pending {  // released, waiting for its uses on other streams
    void* ptr;
    Block block;
  };
  using FreeKey = std::tuple<PoolId, StreamKey, std::size_t>;
  void empty_cache_locked();
  void collect_pending_locked();  // moves blocks whose events have all passed to the free lists
  PoolId pool_now() const { return raw_.current_pool ? raw_.current_pool() : kSharedPool; }
  // The free list a released block of `pool` joins: its pool while that is open, else shared.
  void add_free_locked(void* ptr, const Block& block);

  // exact: returns the shared pool's free blocks to the raw allocator, if it may release now.
  void release_now_if_exact_locked();

  RawAllocator raw_;
  AllocationPolicy policy_;
  mutable std::mutex mutex_;
  std::map<FreeKey, std::vector<void*>> free_;
  std::set<PoolId> open_pools_;  // private pools not yet released
  std::map<void*, Block> live_;  // ordered: record_stream finds the block holding an address
  std::vector<Pending> pending_;
  MemoryStats stats_;
};

}  // namespace kiln
