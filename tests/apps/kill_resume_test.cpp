// kill -9 at random moments: train is killed a bounded number of times, resumed each time (from
// scratch while no checkpoint exists yet), and must end with the weights of an uninterrupted run,
// bit for bit, on the CPU. A kill may land anywhere: in a step, in an evaluation, in the middle of
// writing or publishing a checkpoint. And a second run on a folder in use is refused, naming the
// first.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "kiln/checkpoint/checkpoint.h"
#include "tests/apps/child_process.h"
#include "tests/support/train_testing.h"

namespace {

using Clock = std::chrono::steady_clock;
using kiln::testing::start;
using kiln::testing::wait_for;
using kiln::testing::weights_of;

// Small enough for a few seconds, with a checkpoint every 8 steps and big enough pieces (about 1.6
// MB) that some kills land while one is written.
std::vector<std::string> train_args(const std::string& dir, bool resume) {
  std::vector<std::string> args{
      KILN_TRAIN_BIN, "--model",    "mlp:784-256-10", "--data",       "article",
      "--samples",    "256",        "--batch-size",   "32",           "--epochs",
      "20",           "--schedule", "constant",       "--workers",    "0",
      "--threads",    "1",          "--quiet",        "--checkpoint", dir};
  if (resume) args.emplace_back("--resume");
  return args;
}

// Whether a kill left a unit half written or written but not published (removed on restart).
bool interrupted_a_save(const std::string& dir) {
  if (!std::filesystem::exists(dir)) return false;  // killed before train made the folder
  const auto saved = kiln::read_checkpoint(dir);
  const std::string latest = saved ? std::filesystem::path(saved->folder).filename().string() : "";
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with(".ckpt-") || (name.starts_with("ckpt-") && name > latest)) return true;
  }
  return false;
}

}  // namespace

TEST(TrainKill9, ResumingAfterEachKillEndsWithTheUninterruptedWeightsBitForBit) {
  const std::string straight = kiln::testing::fresh_checkpoint_dir("kill9_straight");
  const auto t0 = Clock::now();
  ASSERT_EQ(wait_for(start(train_args(straight, false))), 0);
  const double run_s = std::chrono::duration<double>(Clock::now() - t0).count();
  const std::string expected = weights_of(straight);
  ASSERT_FALSE(expected.empty());

  const std::string killed = kiln::testing::fresh_checkpoint_dir("kill9_killed");
  const unsigned seed = std::random_device{}();
  std::mt19937 random(seed);
  // Each kill comes early in what is left, so most attempts are killed and each one still
  // advances: over the attempts the kills fall all along the run.
  std::uniform_real_distribution<double> moment(0.03 * run_s, 0.3 * run_s);
  int kills = 0, in_saves = 0;
  for (int attempt = 0; attempt < 8; ++attempt) {
    const bool resume = kiln::read_checkpoint(killed).has_value();
    const pid_t pid = start(train_args(killed, resume));
    const double after_s = moment(random);
    std::this_thread::sleep_for(std::chrono::duration<double>(after_s));
    kill(pid, SIGKILL);
    const int code = wait_for(pid);
    if (code == 128 + SIGKILL) {
      ++kills;
      in_saves += interrupted_a_save(killed) ? 1 : 0;
    } else {
      ASSERT_EQ(code, 0) << "attempt " << attempt << " (seed " << seed << ")";
    }
    if (code == 0) break;  // it finished before the kill
  }
  EXPECT_GE(kills, 2) << "seed " << seed;
  std::printf("uninterrupted run %.2f s; %d kills, %d of them inside a checkpoint save (seed %u)\n",
              run_s, kills, in_saves, seed);
  if (weights_of(killed).empty() || kiln::read_checkpoint(killed)->state.epoch < 20)
    ASSERT_EQ(wait_for(start(train_args(killed, kiln::read_checkpoint(killed).has_value()))), 0)
        << "seed " << seed;
  EXPECT_EQ(weights_of(killed) == expected, true)
      << "the final weights differ from the uninterrupted run's after " << kills << " kills (seed "
      << seed << ", uninterrupted run " << run_s << " s)";
}

TEST(TrainLock, ASecondRunOnAFolderInUseIsRefusedNamingTheFirst) {
  const std::string dir = kiln::testing::fresh_checkpoint_dir("lock_two_runs");
  std::vector<std::string> args = train_args(dir, false);
  // So many epochs that the first run holds the folder until it is killed.
  *(std::find(args.begin(), args.end(), "--epochs") + 1) = "100000";
  const pid_t first = start(args);
  const auto give_up = Clock::now() + std::chrono::seconds(20);
  std::string holder;
  while (holder.empty() && Clock::now() < give_up) {  // the lock file says who holds it
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::ifstream in(dir + "/lock");
    std::getline(in, holder);
  }
  const std::string err_path = dir + "_second.err";
  const int second = wait_for(start(train_args(dir, false), err_path));
  kill(first, SIGKILL);
  wait_for(first);
  std::ifstream in(err_path);
  const std::string err((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(second, 1) << err;
  EXPECT_NE(err.find("checkpoint folder '" + dir + "' is in use by another run (process " +
                     std::to_string(first) + " on "),
            std::string::npos)
      << err;
}
