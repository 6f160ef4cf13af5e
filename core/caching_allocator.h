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
#include <unordered_map>
#include <utility>
#include <vector>

namespace kiln {

struct MemoryStats {
  std::size_t in_use = 0;         // bytes in blocks handed out (rounded sizes)
  std::size_t peak_in_use = 0;
  std::size_t reserved = 0;       // bytes held from the raw allocator: in use + cached
  std::size_t peak_reserved = 0;
  std::uint64_t raw_allocations = 0;  // calls to the raw allocator (cudaMalloc)
  std::uint64_t raw_frees = 0;
};

class CachingAllocator {
 public:
  struct RawAllocator {
    std::function<void*(std::size_t)> allocate;  // returns nullptr when out of memory
    std::function<void(void*)> release;
    // Whether cached blocks may go back now (null: always). Not while a CUDA graph is being
    // recorded: cudaFree waits for the device, which breaks the recording.
    std::function<bool()> may_release_now = nullptr;
  };
  using StreamKey = const void*;

  explicit CachingAllocator(RawAllocator raw);
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // Returns a block of at least `bytes` for use on `stream`, or nullptr when the raw allocator
  // fails even after the cache was emptied, or fails when the cache may not be emptied now (the
  // caller turns that into an error with context).
  void* allocate(std::size_t bytes, StreamKey stream);
  void release(void* ptr);
  // Returns every cached (free) block to the raw allocator, unless it may not release now.
  void empty_cache();
  MemoryStats stats() const;
  void reset_peak();

  // Bucket size: multiples of 512 B below 1 MiB, of 2 MiB above.
  static std::size_t round_size(std::size_t bytes);

 private:
  struct Block {
    std::size_t size;
    StreamKey stream;
  };
  void empty_cache_locked();

  RawAllocator raw_;
  mutable std::mutex mutex_;
  std::map<std::pair<StreamKey, std::size_t>, std::vector<void*>> free_;
  std::unordered_map<void*, Block> live_;
  MemoryStats stats_;
};

}  // namespace kiln
