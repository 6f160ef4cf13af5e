// The signals that ask train to stop: SIGINT (Ctrl-C), SIGTERM (kill, timeout, systemd, Slurm,
// Kubernetes) and SIGHUP (the terminal closed). Each finishes the step, saves a checkpoint (with
// --checkpoint) and ends train with exit status 128 + the signal's number, as a shell reports a
// process the signal ended; a resume continues bit for bit.
#pragma once

#include <atomic>
#include <string>

namespace kiln {

// Blocks the stop signals (leaving a signal ignored that the parent ignored, as nohup does) and
// starts the one thread that takes them, with sigwait(), and sets stop_requested(), for
// TrainerOptions::stop: no signal handler ever runs on a training thread (stop_signals.cpp: why).
// Call it in main() before any other thread starts; threads inherit the mask.
void install_stop_signals();
const std::atomic<bool>* stop_requested();

// The signal that asked to stop (0 when none did), its exit status and its name in words.
int stop_signal();
int stop_exit_status();  // 128 + stop_signal()
std::string stop_signal_name();

}  // namespace kiln
