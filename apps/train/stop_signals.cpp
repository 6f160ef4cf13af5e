// The handlers only store: an atomic flag and the signal's number (both lock-free, so safe in a
// handler). The training loop polls the flag between steps (TrainerOptions::stop). SA_RESTART
// keeps a read or write the signal lands in from failing with EINTR.
#include "kiln/apps/train/stop_signals.h"

#include <signal.h>

#include <cstring>

namespace kiln {

namespace {

std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free);

extern "C" void on_stop_signal(int signal) {
  g_signal.store(signal);
  g_stop.store(true);
}

constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

}  // namespace

void install_stop_signals() {
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_handler = on_stop_signal;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  for (int signal : kStopSignals) {
    // A signal the parent had ignored stays ignored: `nohup train ...` means no stop on SIGHUP.
    struct sigaction inherited;
    if (sigaction(signal, nullptr, &inherited) == 0 && inherited.sa_handler == SIG_IGN) continue;
    sigaction(signal, &action, nullptr);
  }
}

const std::atomic<bool>* stop_requested() { return &g_stop; }

int stop_signal() { return g_signal.load(); }

int stop_exit_status() { return 128 + stop_signal(); }

std::string stop_signal_name() {
  switch (stop_signal()) {
    case SIGINT: return "SIGINT (Ctrl-C)";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
  }
  return "a signal";
}

}  // namespace kiln
