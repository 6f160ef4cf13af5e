// The single-process communicator leaves data alone, the public collectives check their operands,
// and the watchdog turns a collective that never finishes into one message naming it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <string>
#include <thread>

#include "kiln/distributed/collective_watchdog.h"
#include "kiln/distributed/communicator.h"
#include "kiln/distributed/nccl_communicator.h"
#include "tests/support/error_testing.h"
#include "tests/support/tensor_testing.h"

using namespace std::chrono_literals;

TEST(SingleProcessCommunicator, EveryCollectiveLeavesTheDataAsItIs) {
  auto comm = kiln::make_single_process_communicator(kiln::Device::cpu());
  EXPECT_EQ(comm->rank(), 0);
  EXPECT_EQ(comm->world_size(), 1);
  EXPECT_TRUE(comm->is_single_process());
  kiln::Tensor a = kiln::testing::random_tensor(kiln::Shape{33}, 1);
  kiln::Tensor b = kiln::testing::random_tensor(kiln::Shape{7, 3}, 2);
  const kiln::Tensor a0 = a.clone(), b0 = b.clone();
  kiln::Tensor* both[] = {&a, &b};
  comm->all_reduce(both, kiln::CollectiveOp::mean);
  comm->broadcast(both, 0);
  EXPECT_EQ(a.to_vector<float>(), a0.to_vector<float>());
  EXPECT_EQ(b.to_vector<float>(), b0.to_vector<float>());
  double host[3] = {1.5, -2.0, 7.0};
  comm->all_reduce_host(host, kiln::CollectiveOp::mean);
  EXPECT_EQ(host[0], 1.5);
  EXPECT_EQ(host[2], 7.0);
  comm->barrier();
}

TEST(SingleProcessCommunicator, RejectsTensorsItCannotReduce) {
  auto comm = kiln::make_single_process_communicator(kiln::Device::cpu());
  kiln::Tensor labels = kiln::Tensor::zeros(kiln::Shape{4}, kiln::DType::i32);
  EXPECT_THROW(comm->all_reduce_async(labels, kiln::CollectiveOp::sum), kiln::Error);
  kiln::Tensor undefined;
  EXPECT_THROW(comm->all_reduce_async(undefined, kiln::CollectiveOp::sum), kiln::Error);
  kiln::Tensor x = kiln::Tensor::zeros(kiln::Shape{4});
  kiln::Tensor* one[] = {&x};
  EXPECT_THROW(comm->broadcast(one, 1), kiln::Error);  // no rank 1 in a world of one
}

TEST(NcclCommunicator, SaysWhatIsMissingWithoutAGpu) {
  if (kiln::cuda_available()) GTEST_SKIP() << "a GPU is present: tests/gpu covers NCCL";
  const int devices[] = {0};
  try {
    kiln::make_nccl_communicators(devices);
    FAIL() << "expected an error";
  } catch (const kiln::Error& e) {
    const std::string message = e.what();
    EXPECT_TRUE(message.find("NCCL") != std::string::npos) << message;
  }
}

namespace {
struct Fired {
  std::mutex mutex;
  std::string message;
  std::atomic<int> count{0};
  kiln::CollectiveWatchdog::AbortAction action() {
    return [this](const std::string& m) {
      std::lock_guard lock(mutex);
      message = m;
      ++count;
    };
  }
};
}  // namespace

TEST(CollectiveWatchdog, FiresOnceWithTheRankAndTheCollectiveWhenOneNeverFinishes) {
  Fired fired;
  kiln::CollectiveWatchdog watchdog(0.2, "rank 1 of 2 (test)", fired.action());
  watchdog.arm("all-reduce #7 (sum of 33 floats)");
  const auto start = std::chrono::steady_clock::now();
  while (fired.count == 0 && std::chrono::steady_clock::now() - start < 5s)
    std::this_thread::sleep_for(10ms);
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(fired.count.load(), 1);
  EXPECT_GE(waited, 0.2);
  EXPECT_LT(waited, 2.0);
  std::lock_guard lock(fired.mutex);
  EXPECT_NE(fired.message.find("rank 1 of 2"), std::string::npos) << fired.message;
  EXPECT_NE(fired.message.find("all-reduce #7"), std::string::npos) << fired.message;
  EXPECT_NE(fired.message.find("0.2 s"), std::string::npos) << fired.message;
}

// An app's words for the one setting, as train says it.
struct DistTimeoutFlag : kiln::SettingWords {
  std::string name(kiln::Setting s) const override {
    return s == kiln::Setting::communicator_timeout ? "--dist-timeout" : SettingWords::name(s);
  }
};

TEST(CollectiveWatchdog, NamesTheTimeoutSettingInTheCallersWords) {
  const DistTimeoutFlag flag;
  for (const auto& [words, name] :
       {std::pair<const kiln::SettingWords*, std::string>{&kiln::api_setting_words(),
                                                          "CommunicatorOptions::timeout_s"},
        {&flag, "--dist-timeout"}}) {
    Fired fired;
    {
      kiln::CollectiveWatchdog watchdog(0.1, "rank 0 of 2 (test)", fired.action(), *words);
      watchdog.arm("broadcast #1");
      const auto start = std::chrono::steady_clock::now();
      while (fired.count == 0 && std::chrono::steady_clock::now() - start < 5s)
        std::this_thread::sleep_for(10ms);
    }
    std::lock_guard lock(fired.mutex);
    EXPECT_NE(fired.message.find("within 0.1 s (" + name + ")"), std::string::npos)
        << fired.message;
  }
}

TEST(CollectiveWatchdog, ANegativeOrNanTimeoutIsRefusedNamingTheSetting) {
  for (const double timeout : {-1.0, std::nan("")}) {
    Fired fired;
    const std::string m = kiln::testing::error_message(
        [&] { kiln::CollectiveWatchdog watchdog(timeout, "rank 0 of 2 (test)", fired.action()); });
    EXPECT_NE(m.find("CommunicatorOptions::timeout_s must be >= 0 seconds (0: no watchdog)"),
              std::string::npos)
        << m;
  }
}

TEST(CollectiveWatchdog, StaysQuietForCollectivesThatFinishInTime) {
  Fired fired;
  {
    kiln::CollectiveWatchdog watchdog(0.3, "rank 0 of 2 (test)", fired.action());
    for (int i = 0; i < 5;
         ++i) {  // 5 x 0.1 s: longer than the timeout in total, never in one piece
      kiln::CollectiveWatchdog::Scope scope(watchdog, "barrier");
      std::this_thread::sleep_for(100ms);
    }
    std::atomic<bool> done{false};
    watchdog.arm("all-reduce on a stream", [&] { return done.load(); });
    done = true;  // the work finishes without the caller disarming: the poll sees it
    std::this_thread::sleep_for(500ms);
  }
  EXPECT_EQ(fired.count.load(), 0) << fired.message;
}

// A host that queues a GPU collective every 0.1 s while the device runs each 0.2 s behind: no
// single collective is late (0.3 s timeout), though one is always pending for longer than that.
TEST(CollectiveWatchdog, TimesEachCollectiveFromItsOwnStart) {
  Fired fired;
  {
    kiln::CollectiveWatchdog watchdog(0.3, "rank 0 of 2 (test)", fired.action());
    for (int i = 0; i < 10; ++i) {
      const auto finishes = std::chrono::steady_clock::now() + 200ms;
      watchdog.arm("all-reduce #" + std::to_string(i),
                   [finishes] { return std::chrono::steady_clock::now() >= finishes; });
      std::this_thread::sleep_for(100ms);
      watchdog.drop_finished();
    }
    std::this_thread::sleep_for(250ms);  // the last ones finish
  }
  EXPECT_EQ(fired.count.load(), 0) << fired.message;
}

TEST(CollectiveWatchdog, NamesTheOldestCollectiveThatNeverFinishes) {
  Fired fired;
  kiln::CollectiveWatchdog watchdog(0.2, "rank 0 of 2 (test)", fired.action());
  watchdog.arm("all-reduce #1", [] { return true; });
  watchdog.arm("all-reduce #2", [] { return false; });  // hangs; #3 queued behind it
  watchdog.arm("all-reduce #3", [] { return false; });
  const auto start = std::chrono::steady_clock::now();
  while (fired.count == 0 && std::chrono::steady_clock::now() - start < 5s)
    std::this_thread::sleep_for(10ms);
  ASSERT_EQ(fired.count.load(), 1);
  std::lock_guard lock(fired.mutex);
  EXPECT_NE(fired.message.find("all-reduce #2 did not finish"), std::string::npos) << fired.message;
}

TEST(CollectiveWatchdog, PolledWorkThatNeverFinishesFires) {
  Fired fired;
  kiln::CollectiveWatchdog watchdog(0.2, "rank 0 of 1 (test)", fired.action());
  watchdog.arm("broadcast #1", [] { return false; });
  const auto start = std::chrono::steady_clock::now();
  while (fired.count == 0 && std::chrono::steady_clock::now() - start < 5s)
    std::this_thread::sleep_for(10ms);
  EXPECT_EQ(fired.count.load(), 1);
}
