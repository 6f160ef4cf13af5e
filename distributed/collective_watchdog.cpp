// The watchdog thread: wakes a few times per timeout, fires once.
#include "kiln/distributed/collective_watchdog.h"

#include <fmt/format.h>

#include <algorithm>

#include "kiln/core/error.h"

namespace kiln {

CollectiveWatchdog::CollectiveWatchdog(double timeout_s, std::string who, AbortAction abort,
                                       const SettingWords& words)
    : timeout_s_(timeout_s), who_(std::move(who)), words_(words), abort_(std::move(abort)) {
  KILN_CHECK(timeout_s_ >= 0.0, "{} must be >= 0 seconds (0: no watchdog), found {}",
             Setting::communicator_timeout,
             timeout_s_);  // NaN too: it would turn the watchdog off without a word
  if (timeout_s_ > 0) thread_ = std::thread([this] { watch(); });
}

CollectiveWatchdog::~CollectiveWatchdog() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void CollectiveWatchdog::arm(std::string what, std::function<bool()> is_done) {
  if (!thread_.joinable()) return;
  std::lock_guard lock(mutex_);
  armed_.push_back({std::move(what), std::move(is_done), Clock::now()});
}

void CollectiveWatchdog::disarm() {
  if (!thread_.joinable()) return;
  std::lock_guard lock(mutex_);
  armed_.clear();
}

void CollectiveWatchdog::drop_finished() {
  if (!thread_.joinable()) return;
  std::lock_guard lock(mutex_);
  drop_finished_locked();
}

void CollectiveWatchdog::drop_finished_locked() {
  while (!armed_.empty() && armed_.front().is_done && armed_.front().is_done()) armed_.pop_front();
}

void CollectiveWatchdog::watch() {
  // Polling a tenth of the timeout (at most 1 s) fires within 10 % of it.
  const auto period = std::chrono::duration<double>(std::min(1.0, timeout_s_ / 10.0));
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, period);
    if (stopping_) continue;
    drop_finished_locked();
    if (armed_.empty()) continue;
    const double waited =
        std::chrono::duration<double>(Clock::now() - armed_.front().since).count();
    if (waited < timeout_s_) continue;
    const std::string message = in_words(
        fmt::format("kiln: {}: {} did not finish within {:g} s ({}); another rank probably died "
                    "or is stuck (check its output above); ending the whole job",
                    who_, armed_.front().what, timeout_s_, Setting::communicator_timeout),
        words_);
    armed_.clear();
    lock.unlock();
    abort_(message);
    return;
  }
}

}  // namespace kiln
