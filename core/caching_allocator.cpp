// The caching allocator's bookkeeping. The raw allocator is called only on a cache miss (and
// once more after emptying the cache when it reports out of memory).
#include "kiln/core/caching_allocator.h"

#include <algorithm>

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

CachingAllocator::CachingAllocator(RawAllocator raw) : raw_(std::move(raw)) {}

CachingAllocator::~CachingAllocator() {
  std::lock_guard lock(mutex_);
  // At exit the blocks still waiting go back as they are: nothing reuses them any more.
  for (Pending& p : pending_) {
    for (auto& [stream, event] : p.block.uses)
      if (event != nullptr) raw_.release_event(event);
    free_[{p.block.stream, p.block.size}].push_back(p.ptr);
  }
  pending_.clear();
  empty_cache_locked();
  // Blocks still live at exit belong to tensors that outlive the allocator (static objects);
  // the driver reclaims them with the process.
}

std::size_t CachingAllocator::round_size(std::size_t bytes) {
  if (bytes == 0) bytes = 1;
  return bytes < kSmallLimit ? round_up(bytes, kSmallGranule) : round_up(bytes, kLargeGranule);
}

void* CachingAllocator::allocate(std::size_t bytes, StreamKey stream) {
  const std::size_t size = round_size(bytes);
  std::lock_guard lock(mutex_);
  collect_pending_locked();
  void* ptr = nullptr;
  std::size_t block_size = size;
  // The smallest cached block on this stream that fits and is not wastefully large.
  auto it = free_.lower_bound({stream, size});
  if (it != free_.end() && it->first.first == stream && it->first.second <= size * kMaxOversize) {
    block_size = it->first.second;
    ptr = it->second.back();
    it->second.pop_back();
    if (it->second.empty()) free_.erase(it);
  } else {
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
  live_.emplace(ptr, Block{block_size, stream, {}});
  stats_.in_use += block_size;
  stats_.peak_in_use = std::max(stats_.peak_in_use, stats_.in_use);
  return ptr;
}

void CachingAllocator::release(void* ptr) {
  if (ptr == nullptr) return;
  std::lock_guard lock(mutex_);
  auto it = live_.find(ptr);
  if (it == live_.end()) return;  // not ours; nothing sensible to do in a deleter
  Block block = std::move(it->second);
  live_.erase(it);
  stats_.in_use -= block.size;
  if (block.uses.empty()) {
    free_[{block.stream, block.size}].push_back(ptr);
    return;
  }
  pending_.push_back(Pending{ptr, std::move(block)});
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
    return;  // not ours, or its own stream
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
    free_[{p.block.stream, p.block.size}].push_back(p.ptr);
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
void CachingAllocator::empty_cache_locked() {
  collect_pending_locked();
  for (auto& [key, blocks] : free_) {
    for (void* ptr : blocks) {
      raw_.release(ptr);
      ++stats_.raw_frees;
      stats_.reserved -= key.second;
    }
  }
  free_.clear();
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
