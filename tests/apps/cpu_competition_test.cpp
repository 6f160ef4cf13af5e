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
  if (!std::filesystem::exists("/proc/self/schedstat")) GTEST_SKIP() << "this kernel has no schedstat: run-queue delays cannot be read";
  const Hogs hogs(std::max(1u, std::thread::hardware_concurrency()));
  const kiln::testing::Outcome o = kiln::testing::train("--device=cpu --epochs 1 --samples 1200");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("shared CPU: this process's threads waited for a core"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("yes "), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("compute-bound"), std::string::npos) << o.out;
}

}  // namespace
