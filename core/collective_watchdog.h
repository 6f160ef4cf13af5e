// CollectiveWatchdog: turns a hung collective into a clear message. A collective that waits for a
// rank that died or stopped would otherwise block its peers forever; the watchdog's thread sees
// that the armed collective is older than the timeout and hands a message naming the rank and
// the collective to the abort action, which ends the job (MPI_Abort, ncclCommAbort, exit).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace kiln {

class CollectiveWatchdog {
 public:
  // Receives the message ("kiln: rank 1 of 2 (MPI): all-reduce #12 (sum of 4096 floats) did not
  // finish within 5 s; ...") and is expected not to return; if it does, watching stops.
  using AbortAction = std::function<void(const std::string& message)>;

  // timeout_s <= 0: never fires (no thread). `who`: "rank 1 of 2 (MPI)".
  CollectiveWatchdog(double timeout_s, std::string who, AbortAction abort);
  ~CollectiveWatchdog();
  CollectiveWatchdog(const CollectiveWatchdog&) = delete;
  CollectiveWatchdog& operator=(const CollectiveWatchdog&) = delete;

  // A collective is under way. `is_done` (may be empty) is polled from the watchdog's thread for
  // work that finishes without the caller (a GPU collective); otherwise the caller disarms.
  // Arming while armed keeps the older start time: the new work completes after the old.
  void arm(std::string what, std::function<bool()> is_done = {});
  void disarm();
  double timeout_s() const { return timeout_s_; }

  // Armed for a blocking collective's scope, disarmed even when it throws.
  class Scope {
   public:
    Scope(CollectiveWatchdog& watchdog, std::string what) : watchdog_(watchdog) {
      watchdog_.arm(std::move(what));
    }
    ~Scope() { watchdog_.disarm(); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    CollectiveWatchdog& watchdog_;
  };

 private:
  void watch();

  using Clock = std::chrono::steady_clock;
  double timeout_s_;
  std::string who_;
  AbortAction abort_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool armed_ = false;
  bool stopping_ = false;
  std::string what_;
  std::function<bool()> is_done_;
  Clock::time_point since_;
  std::thread thread_;
};

}  // namespace kiln
