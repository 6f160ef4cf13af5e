// No stop signal may run a handler on a thread that computes: oneDNN's JIT GEMM kernels point rsp
// at the heap, where the kernel would write the signal frame (apps/train/stop_signals.cpp). So the
// stop signals are blocked in every thread but the one that waits for them.
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "apps/train/stop_signals.h"
#include "tests/support/train_testing.h"

namespace {

using Clock = std::chrono::steady_clock;

bool blocked_here(int signal) {
  sigset_t mask;
  pthread_sigmask(SIG_BLOCK, nullptr, &mask);
  return sigismember(&mask, signal) == 1;
}

// Waits (at most 20 s, so that a failure ends the test rather than hangs it) until `done`.
template <typename Done> bool eventually(Done&& done) {
  const auto give_up = Clock::now() + std::chrono::seconds(20);
  while (!done() && Clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return done();
}

// The threads of process `pid` whose mask leaves `signal` unblocked, from /proc (SigBlk is hex).
int threads_taking(pid_t pid, int signal) {
  int taking = 0;
  for (const auto& task :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
    std::ifstream status(task.path() / "status");
    for (std::string line; std::getline(status, line);)
      if (line.starts_with("SigBlk:"))
        taking += (std::stoull(line.substr(7), nullptr, 16) >> (signal - 1) & 1) == 0 ? 1 : 0;
  }
  return taking;
}

int exit_code(int status) {
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

// In a child process, since install_stop_signals() changes its process for good: the child's exit
// status is the number of the first check that failed.
TEST(StopSignalThreads, InstallBlocksTheSignalsInEveryThreadAndOneWaiterTakesThem) {
  const pid_t pid = fork();
  if (pid == 0) {
    signal(SIGTERM, SIG_DFL);
    kiln::install_stop_signals();
    if (!blocked_here(SIGTERM)) _exit(1);
    bool in_thread = false;
    std::thread([&] { in_thread = blocked_here(SIGTERM); }).join();
    if (!in_thread) _exit(2);
    kill(getpid(), SIGTERM);  // to the process: only the waiter can take it
    if (!eventually([] { return kiln::stop_requested()->load(); })) _exit(3);
    _exit(kiln::stop_signal() == SIGTERM ? 0 : 4);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_EQ(exit_code(status), 0) << "1: not blocked in main, 2: not in a new thread, 3: no stop, "
                                     "4: another signal recorded";
}

// The train program mid-run, with loader workers and OpenMP threads: one thread alone (the
// waiter) takes SIGTERM, and SIGTERM still ends the run with a checkpoint and exit status 143.
TEST(StopSignalThreads, InTrainOnlyTheWaiterTakesSigtermAndItEndsTheRunWith143) {
  const std::string dir = kiln::testing::fresh_checkpoint_dir("stop_signal_threads");
  const std::vector<std::string> args{
      KILN_TRAIN_BIN, "--model",    "mlp:784-64-10", "--data",       "article",
      "--samples",    "256",        "--batch-size",  "32",           "--epochs",
      "100000",       "--schedule", "constant",      "--workers",    "2",
      "--threads",    "2",          "--quiet",       "--checkpoint", dir};
  const pid_t pid = fork();
  if (pid == 0) {
    signal(SIGTERM, SIG_DFL);  // not ignored, whatever this process inherited
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  // After a whole epoch every thread the run uses has started.
  const bool saved = eventually([&] { return std::filesystem::exists(dir + "/latest"); });
  const int taking = saved ? threads_taking(pid, SIGTERM) : -1;
  kill(pid, saved ? SIGTERM : SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(saved) << "no checkpoint within 20 s";
  EXPECT_EQ(taking, 1) << "threads that would run a SIGTERM handler on their own stack";
  EXPECT_EQ(exit_code(status), 143);
}
