// No handler: the stop signals are blocked in every thread, and one thread that runs nothing else
// takes them with sigwait() and stores the signal's number and the flag (atomics, which the
// training loop polls between steps: TrainerOptions::stop). A handler ran on whatever thread the
// signal found, inside oneDNN's JIT kernels too, and corrupted the heap there (see below).
#include "apps/train/stop_signals.h"

#include <pthread.h>
#include <signal.h>

#include <cstring>
#include <thread>

#include "kiln/core/error.h"

namespace kiln {

namespace {

std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};

constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

}  // namespace

// A handler runs on whichever thread the signal finds, at that thread's stack pointer, and
// oneDNN's JIT f32 GEMM kernels (x64:gemm:jit of the system's oneDNN 2.6; fixed upstream in 3.11,
// oneDNN issue 4845) point rsp at a heap workspace while they run: the kernel then wrote the
// signal frame into the heap, and a later free() aborted with "corrupted size vs. prev_size while
// consolidating".
void install_stop_signals() {
  sigset_t taken;
  sigemptyset(&taken);
  for (int signal : kStopSignals) {
    // An ignored SIGHUP stays ignored: `nohup train ...` means no stop on SIGHUP. SIGINT and
    // SIGTERM are always taken, as before: a shell script's background job inherits an ignored
    // SIGINT, and `kill -INT` must still stop it with a checkpoint.
    struct sigaction inherited;
    if (signal == SIGHUP && sigaction(signal, nullptr, &inherited) == 0 &&
        inherited.sa_handler == SIG_IGN)
      continue;
    sigaddset(&taken, signal);
  }
  // Blocked here, so in every thread started later too: they inherit the mask.
  const int blocked = pthread_sigmask(SIG_BLOCK, &taken, nullptr);
  KILN_CHECK(blocked == 0, "blocking the stop signals failed: {}", std::strerror(blocked));
  // Detached: it touches nothing but the two atomics, so it may still wait as the process exits.
  std::thread([taken] {
    for (;;) {
      int signal = 0;
      if (sigwait(&taken, &signal) != 0) continue;  // only EINVAL, for a set of valid signals
      g_signal.store(signal);
      g_stop.store(true);
    }
  }).detach();
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
