// SIGTERM (what kill, timeout, systemd, Slurm and Kubernetes send), SIGHUP and SIGINT stop train
// as Ctrl-C does: the step finishes, a checkpoint is saved where the run stood, train exits with
// 128 + the signal's number, and --resume ends with the weights of an uninterrupted run, bit for
// bit, on the CPU.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "kiln/checkpoint/checkpoint.h"
#include "tests/apps/child_process.h"
#include "tests/support/train_testing.h"

namespace {

using kiln::testing::file_text;
using kiln::testing::start;
using kiln::testing::wait_for;
using kiln::testing::weights_of;

// 8 steps an epoch, a checkpoint after each; --epochs is not a setting a resume compares.
std::vector<std::string> stoppable_train_args(const std::string& dir, std::int64_t epochs,
                                              bool resume = false) {
  std::vector<std::string> args{KILN_TRAIN_BIN,
                                "--model",
                                "mlp:784-64-10",
                                "--data",
                                "article",
                                "--samples",
                                "256",
                                "--batch-size",
                                "32",
                                "--epochs",
                                std::to_string(epochs),
                                "--schedule",
                                "constant",
                                "--workers",
                                "0",
                                "--threads",
                                "1",
                                "--quiet",
                                "--checkpoint",
                                dir};
  if (resume) args.emplace_back("--resume");
  return args;
}

struct Stopped {
  int status = -1;
  std::string out;            // what train printed on stdout
  kiln::TrainingState state;  // of the checkpoint it left
};

// A run of endless epochs, sent `signal` once its first checkpoint is published: the signal
// lands while it trains, however fast the machine.
Stopped stop_with(int signal, const std::string& dir) {
  const std::string out_path = dir + ".out";
  const pid_t pid = start(stoppable_train_args(dir, 1000000), dir + ".err", out_path);
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::optional<kiln::SavedCheckpoint> first;
  while (!first && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    try {
      first = kiln::read_checkpoint(dir);
    } catch (const kiln::Error&) {  // the folder is being made
    }
  }
  kill(pid, first ? signal : SIGKILL);
  Stopped stopped;
  stopped.status = wait_for(pid);
  stopped.out = file_text(out_path);
  const auto saved = kiln::read_checkpoint(dir);
  if (saved) stopped.state = saved->state;
  return stopped;
}

}  // namespace

TEST(TrainStopSignals, SigtermSavesACheckpointAndTheResumeEndsAsAnUninterruptedRunBitForBit) {
  const std::string dir = kiln::testing::fresh_checkpoint_dir("sigterm");
  const Stopped stopped = stop_with(SIGTERM, dir);
  ASSERT_EQ(stopped.status, 128 + SIGTERM) << stopped.out << file_text(dir + ".err");
  EXPECT_NE(stopped.out.find("interrupted by SIGTERM; checkpoint saved in " + dir),
            std::string::npos)
      << stopped.out;
  ASSERT_GE(stopped.state.global_step, 8)
      << "the first epoch's checkpoint was there before the signal";
  const std::int64_t epochs = stopped.state.epoch + 2;  // at least one more whole epoch
  ASSERT_EQ(wait_for(start(stoppable_train_args(dir, epochs, true), dir + ".resume.err")), 0)
      << file_text(dir + ".resume.err");
  const std::string reference = kiln::testing::fresh_checkpoint_dir("sigterm_reference");
  ASSERT_EQ(wait_for(start(stoppable_train_args(reference, epochs))), 0);
  const std::string resumed = weights_of(dir);
  ASSERT_FALSE(resumed.empty());
  EXPECT_TRUE(resumed == weights_of(reference))
      << "stopped at step " << stopped.state.global_step << " (epoch " << stopped.state.epoch + 1
      << ", " << stopped.state.batches_done << " batches in), resumed to " << epochs << " epochs";
}

TEST(TrainStopSignals, SighupAndSigintStopCleanlyWithTheirOwnExitStatus) {
  for (const auto& [signal, name] : {std::pair{SIGHUP, "SIGHUP"}, std::pair{SIGINT, "SIGINT"}}) {
    const std::string dir = kiln::testing::fresh_checkpoint_dir(std::string("stop_") + name);
    const Stopped stopped = stop_with(signal, dir);
    EXPECT_EQ(stopped.status, 128 + signal) << name << ": " << file_text(dir + ".err");
    EXPECT_NE(stopped.out.find(std::string("interrupted by ") + name), std::string::npos)
        << stopped.out;
    EXPECT_GE(stopped.state.global_step, 8) << name;
  }
}
