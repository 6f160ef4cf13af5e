// The caching allocator's bookkeeping. The raw allocator is called only on a cache miss (and
// once more after emptying the cache when it reports out of memory); under the exact policy, on
// every allocation, and every release empties the cache.
#include "kiln/core/caching_allocator.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "kiln/core/error.h"
#include "kiln/core/excerpt.h"
#include "kiln/core/log.h"

namespace kiln {

namespace {
constexpr std::size_t kSmallLimit = std::size_t{1} << 20;  // 1 MiB
constexpr std::size_t kSmallGranule = 512;
constexpr std::size_t kLargeGranule = std::size_t{2} << 20;  // 2 MiB
// A cached block may serve a request up to this factor smaller, so shapes that shrink a little
// (the last, partial batch of an epoch) reuse blocks instead of allocating.
constexpr std::size_t kMaxOversize = 2;

std::size_t round_up(std::size_t n, std::size_t granule) {
  return (n + granule - 1) / granule * granule;
}
}  // namespace

AllocationPolicy parse_allocation_policy(const char* name) {
  if (name == nullptr || *name == '\0' || std::string_view(name) == "caching")
    return AllocationPolicy::caching;
  if (std::string_view(name) == "exact") return AllocationPolicy::exact;
  KILN_THROW(
      "KILN_DEVICE_ALLOCATOR={}: expected caching or exact (or unset it: caching is the "
      "default; exact is for compute-sanitizer's memcheck)",
      excerpt(name));
}

AllocationPolicy device_allocation_policy() {
  static const AllocationPolicy policy = [] {
    const AllocationPolicy p = parse_allocation_policy(std::getenv("KILN_DEVICE_ALLOCATOR"));
    if (p == AllocationPolicy::exact)
      log::warn(
          "KILN_DEVICE_ALLOCATOR=exact: device allocations of the exact size, no cache "
          "(a raw allocation and release each), so that memcheck sees every overrun");
    return p;
  }();
  return policy;
}

CachingAllocator::CachingAllocator(RawAllocator raw, AllocationPolicy policy)
    : raw_(std::move(raw)), policy_(policy) {}

CachingAllocator::~CachingAllocator() {
  std::lock_guard lock(mutex_);
  // At exit the blocks still waiting go back as they are: nothing reuses them any more.
  for (Pending& p : pending_) {
    for (auto& [stream, event] : p.block.uses)
      if (event != nullptr) raw_.release_event(event);
    free_[{kSharedPool, p.block.stream, p.block.size}].push_back(p.ptr);
  }
  pending_.clear();
  for (auto& [key, blocks] : free_)
    if (std::get<0>(key) != kSharedPool) {
      auto& shared = free_[{kSharedPool, std::get<1>(key), std::get<2>(key)}];
      shared.insert(shared.end(), blocks.begin(), blocks.end());
      blocks.clear();
    }
  empty_cache_locked();
  // Blocks still live at exit belong to tensors that outlive the allocator (static objects);
  // the driver reclaims them with the process.
}

std::size_t CachingAllocator::round_size(std::size_t bytes) {
  if (bytes == 0) bytes = 1;
  return bytes < kSmallLimit ? round_up(bytes, kSmallGranule) : round_up(bytes, kLargeGranule);
}

void* CachingAllocator::allocate(std::size_t bytes, StreamKey stream) {
  const bool exact = policy_ == AllocationPolicy::exact;
  const std::size_t size = exact ? std::max<std::size_t>(bytes, 1) : round_size(bytes);
  const PoolId pool = pool_now();
  std::lock_guard lock(mutex_);
  if (pool != kSharedPool) open_pools_.insert(pool);
  collect_pending_locked();
  release_now_if_exact_locked();  // blocks whose other-stream uses have passed since
  void* ptr = nullptr;
  std::size_t block_size = size;
  // The smallest cached block on this stream that fits and is not wastefully large: from the
  // caller's pool, else (a capture) from the shared one, whose blocks' earlier uses all precede
  // the capture on this stream.
  auto take = [&](PoolId from) {
    auto it = free_.lower_bound({from, stream, size});
    if (it == free_.end() || std::get<0>(it->first) != from || std::get<1>(it->first) != stream ||
        std::get<2>(it->first) > size * kMaxOversize)
      return false;
    block_size = std::get<2>(it->first);
    ptr = it->second.back();
    it->second.pop_back();
    if (it->second.empty()) free_.erase(it);
    return true;
  };
  // Exact: never from the cache, so every block is exactly its request to the sanitizer.
  if (exact || (!take(pool) && (pool == kSharedPool || !take(kSharedPool)))) {
    ptr = raw_.allocate(size);
    if (ptr == nullptr) {
      if (raw_.may_release_now && !raw_.may_release_now()) return nullptr;
      empty_cache_locked();
      ptr = raw_.allocate(size);
      if (ptr == nullptr) return nullptr;
    }
    ++stats_.raw_allocations;
    stats_.reserved += size;
    stats_.peak_reserved = std::max(stats_.peak_reserved, stats_.reserved);
  }
  live_.emplace(ptr, Block{block_size, stream, pool, {}});
  stats_.in_use += block_size;
  stats_.peak_in_use = std::max(stats_.peak_in_use, stats_.in_use);
  return ptr;
}

void CachingAllocator::release(void* ptr) {
  if (ptr == nullptr) return;
  const PoolId pool = pool_now();
  std::lock_guard lock(mutex_);
  auto it = live_.find(ptr);
  if (it == live_.end()) return;  // not ours; nothing sensible to do in a deleter
  Block block = std::move(it->second);
  live_.erase(it);
  stats_.in_use -= block.size;
  // Freed while this thread captures: the recorded work may still use it at every replay, so it
  // stays with the capture's pool, wherever it came from.
  if (pool != kSharedPool) {
    open_pools_.insert(pool);
    block.pool = pool;
  }
  if (block.uses.empty())
    add_free_locked(ptr, block);
  else
    pending_.push_back(Pending{ptr, std::move(block)});
  release_now_if_exact_locked();
}

void CachingAllocator::release_now_if_exact_locked() {
  if (policy_ != AllocationPolicy::exact) return;
  if (raw_.may_release_now && !raw_.may_release_now()) return;  // at a later call
  empty_cache_locked();
}

void CachingAllocator::add_free_locked(void* ptr, const Block& block) {
  const PoolId pool = open_pools_.count(block.pool) > 0 ? block.pool : kSharedPool;
  free_[{pool, block.stream, block.size}].push_back(ptr);
}

void CachingAllocator::release_pool(PoolId pool) {
  if (pool == kSharedPool) return;
  std::lock_guard lock(mutex_);
  open_pools_.erase(pool);
  for (auto it = free_.lower_bound({pool, nullptr, 0});
       it != free_.end() && std::get<0>(it->first) == pool;) {
    auto& shared = free_[{kSharedPool, std::get<1>(it->first), std::get<2>(it->first)}];
    shared.insert(shared.end(), it->second.begin(), it->second.end());
    it = free_.erase(it);
  }
  release_now_if_exact_locked();
}

void CachingAllocator::record_stream(void* ptr, StreamKey stream) {
  std::lock_guard lock(mutex_);
  auto it =
      live_.upper_bound(ptr);  // the first block starting after ptr; the one before may hold it
  if (it == live_.begin()) return;
  --it;
  const std::uintptr_t offset =
      reinterpret_cast<std::uintptr_t>(ptr) - reinterpret_cast<std::uintptr_t>(it->first);
  if (offset >= it->second.size || it->second.stream == stream)
    return;                                                    // not ours, or its own stream
  if (raw_.is_capturing && raw_.is_capturing(stream)) return;  // see RawAllocator::is_capturing
  void* event = raw_.record_event(stream);
  for (auto& [other, last] : it->second.uses) {
    if (other != stream) continue;
    if (last != nullptr) raw_.release_event(last);  // this use comes after it on that stream
    last = event;
    return;
  }
  it->second.uses.emplace_back(stream, event);
}

void CachingAllocator::collect_pending_locked() {
  auto passed = [this](Pending& p) {
    for (auto& [stream, event] : p.block.uses)
      if (event != nullptr && !raw_.event_done(event)) return false;
    for (auto& [stream, event] : p.block.uses)
      if (event != nullptr) raw_.release_event(event);
    add_free_locked(p.ptr, p.block);
    return true;
  };
  pending_.erase(std::remove_if(pending_.begin(), pending_.end(), passed), pending_.end());
}

void CachingAllocator::empty_cache() {
  std::lock_guard lock(mutex_);
  if (raw_.may_release_now && !raw_.may_release_now()) return;  // kept for later
  empty_cache_locked();
}

// Blocks still waiting for another stream stay: the raw allocator may not take them back yet.
// So do a private pool's: its graph's replays write them.
void CachingAllocator::empty_cache_locked() {
  collect_pending_locked();
  for (auto it = free_.begin(); it != free_.end() && std::get<0>(it->first) == kSharedPool;) {
    for (void* ptr : it->second) {
      raw_.release(ptr);
      ++stats_.raw_frees;
      stats_.reserved -= std::get<2>(it->first);
    }
    it = free_.erase(it);
  }
}

MemoryStats CachingAllocator::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void CachingAllocator::reset_peak() {
  std::lock_guard lock(mutex_);
  stats_.peak_in_use = stats_.in_use;
  stats_.peak_reserved = stats_.reserved;
}

}  // namespace kiln
