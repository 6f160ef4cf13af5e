// RegionTimer: times one named region of work on a device and accumulates it over repetitions,
// the primitive the step profiler builds on. On a GPU it records CUDA events on the current
// stream, so asynchronous work is measured where it runs, and the host waits only when a total
// is read; on the CPU it reads the steady clock.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "kiln/core/stream.h"

namespace kiln {

class RegionTimer {
 public:
  RegionTimer(std::string name, Device device);

  const std::string& name() const { return name_; }
  Device device() const { return device_; }
  void start() { start(Stream::current(device_)); }
  void stop() { stop(Stream::current(device_)); }
  // The same on `stream`: work queued on a side stream (the loader's copies).
  void start(const Stream& stream);
  void stop(const Stream& stream);
  // Total milliseconds over all start/stop pairs so far (waits for pending GPU events).
  double total_ms();
  int count() const { return count_; }
  void reset();
  // Event pairs held (at most kMaxPending, even when no total is ever read).
  std::size_t held_pairs() const { return starts_.size(); }
  static constexpr std::size_t kMaxPending = 1024;

 private:
  void fold_pending();

  std::string name_;
  Device device_;
  std::vector<Event> starts_;  // one pair per region not yet folded into total_ms_
  std::vector<Event> stops_;
  std::size_t pending_ = 0;
  double total_ms_ = 0.0;
  int count_ = 0;
  bool running_ = false;
};

// Starts a region on construction and stops it on destruction.
class ScopedRegion {
 public:
  explicit ScopedRegion(RegionTimer& timer) : timer_(timer) { timer_.start(); }
  ~ScopedRegion() { timer_.stop(); }
  ScopedRegion(const ScopedRegion&) = delete;
  ScopedRegion& operator=(const ScopedRegion&) = delete;

 private:
  RegionTimer& timer_;
};

}  // namespace kiln
