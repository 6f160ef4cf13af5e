// CollectiveWatchdog: turns a hung collective into a clear message. A collective that waits for a
// rank that died or stopped would otherwise block its peers forever; the watchdog's thread sees
// that the oldest unfinished collective is older than the timeout and hands a message naming the
// rank and the collective to the abort action, which ends the job (MPI_Abort, ncclCommAbort, exit).
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "kiln/core/setting.h"

namespace kiln {

class CollectiveWatchdog {
 public:
  // Receives the message ("kiln: rank 1 of 2 (MPI): all-reduce #12 (sum of 4096 floats) did not
  // finish within 5 s; ...") and is expected not to return; if it does, watching stops.
  using AbortAction = std::function<void(const std::string& message)>;

  // timeout_s <= 0: never fires (no thread). `who`: "rank 1 of 2 (MPI)". `words`: those the
  // message names the setting in (CommunicatorOptions::words).
  CollectiveWatchdog(double timeout_s, std::string who, AbortAction abort,
                     const SettingWords& words = api_setting_words());
  ~CollectiveWatchdog();
  CollectiveWatchdog(const CollectiveWatchdog&) = delete;
  CollectiveWatchdog& operator=(const CollectiveWatchdog&) = delete;

  // Each armed collective is timed from its own start, so a host running many GPU steps ahead of
  // the device is never mistaken for a hang.
  // A collective is under way, queued behind those still armed (they finish in order).
  // `is_done` (may be empty) is polled, from the watchdog's thread and from drop_finished(), for
  // work that finishes without the caller (a GPU collective); otherwise the caller disarms.
  void arm(std::string what, std::function<bool()> is_done = {});
  // Forgets every armed collective: the caller saw them all finish.
  void disarm();
  // Forgets the armed collectives at the front of the queue whose is_done() says they finished,
  // so that the caller may reuse what those polls read (an event recorded anew).
  void drop_finished();
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
  void drop_finished_locked();

  using Clock = std::chrono::steady_clock;
  double timeout_s_;
  std::string who_;
  const SettingWords& words_;
  AbortAction abort_;
  std::mutex mutex_;
  std::condition_variable wake_;
  struct Armed {
    std::string what;
    std::function<bool()> is_done;
    Clock::time_point since;
  };
  bool stopping_ = false;
  std::deque<Armed> armed_;  // oldest first
  std::thread thread_;
};

}  // namespace kiln
