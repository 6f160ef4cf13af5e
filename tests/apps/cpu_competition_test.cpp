// train beside CPU hogs: the diagnosis names the competition instead of calling the run
// compute-bound. Registered RUN_SERIAL (tests/apps/CMakeLists.txt): the suite's own parallel
// jobs would be competition of their own.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "app_testing.h"

namespace {

// One `yes > /dev/null` per core, killed when the test ends.
class Hogs {
 public:
  explicit Hogs(unsigned count) {
    for (unsigned i = 0; i < count; ++i) {
      const pid_t pid = fork();
      if (pid == 0) {
        freopen("/dev/null", "w", stdout);
        execlp("yes", "yes", static_cast<char*>(nullptr));
        _exit(127);
      }
      if (pid > 0) pids_.push_back(pid);
    }
  }
  ~Hogs() {
    for (pid_t pid : pids_) kill(pid, SIGKILL);
    for (pid_t pid : pids_) waitpid(pid, nullptr, 0);
  }
  Hogs(const Hogs&) = delete;
  Hogs& operator=(const Hogs&) = delete;

 private:
  std::vector<pid_t> pids_;
};

TEST(CpuCompetition, DiagnosisOfTrainBesideCpuHogsNamesThem) {
  if (!std::filesystem::exists("/proc/self/schedstat"))
    GTEST_SKIP() << "this kernel has no schedstat: run-queue delays cannot be read";
  const Hogs hogs(std::max(1u, std::thread::hardware_concurrency()));
  const std::string log =
      ::testing::TempDir() + "kiln_competition_" + std::to_string(getpid()) + ".jsonl";
  std::filesystem::remove(log);
  const kiln::testing::Outcome o = kiln::testing::train(
      "--device=cpu --epochs 1 --data article --samples 4000 --model mlp:784-256-10 --log-json " +
      log);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("shared CPU: this process's threads waited for a core"), std::string::npos)
      << o.out;
  EXPECT_EQ(o.out.find("compute-bound"), std::string::npos) << o.out;
  // The hogs are among the processes named (the printed line shows the busiest three only; on a
  // busy machine others may outrank them there).
  const nlohmann::json line = nlohmann::json::parse(kiln::testing::read_file(log));
  bool named = false;
  for (const nlohmann::json& p : line["cpu_competitors"]) named = named || p["name"] == "yes";
  EXPECT_TRUE(named) << line["cpu_competitors"].dump();
  std::filesystem::remove(log);
}

}  // namespace
