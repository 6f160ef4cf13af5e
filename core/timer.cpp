// RegionTimer: pairs of events, reused; folded into a total only when the total is read, so
// timing a GPU region never stalls the host in the middle of a step.
#include "kiln/core/timer.h"

#include "kiln/core/error.h"

namespace kiln {

RegionTimer::RegionTimer(std::string name, Device device)
    : name_(std::move(name)), device_(device) {}

void RegionTimer::start(const Stream& stream) {
  KILN_CHECK(!running_, "timer '{}' started twice without stop()", name_);
  // A timer whose total is never read (the loader's copy timer in a program that never asks
  // for stats) would otherwise hold a pair per region forever: fold at the cap, one wait for
  // the GPU every kMaxPending regions.
  if (pending_ == kMaxPending) fold_pending();
  if (pending_ == starts_.size()) {  // grows only until the first fold, then pairs are reused
    starts_.emplace_back(device_);
    stops_.emplace_back(device_);
  }
  starts_[pending_].record(stream);
  running_ = true;
}

void RegionTimer::stop(const Stream& stream) {
  KILN_CHECK(running_, "timer '{}' stopped without start()", name_);
  stops_[pending_].record(stream);
  ++pending_;
  ++count_;
  running_ = false;
}

void RegionTimer::fold_pending() {
  for (std::size_t i = 0; i < pending_; ++i) total_ms_ += Event::elapsed_ms(starts_[i], stops_[i]);
  pending_ = 0;
}

double RegionTimer::total_ms() {
  fold_pending();
  return total_ms_;
}

void RegionTimer::reset() {
  KILN_CHECK(!running_, "timer '{}' reset while running", name_);
  pending_ = 0;
  total_ms_ = 0.0;
  count_ = 0;
}

}  // namespace kiln
