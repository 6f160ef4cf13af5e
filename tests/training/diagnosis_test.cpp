#include <gtest/gtest.h>

#include "kiln/report/report_format.h"
#include "kiln/training/diagnosis.h"

namespace {
kiln::EpochReport report(double wall_s, double wait_ms, double copy_ms = 0.0, bool gpu = false) {
  kiln::EpochReport r;
  r.wall_s = wall_s;
  r.on_gpu = gpu;
  r.batch_size = 128;
  r.stages[kiln::Stage::data_wait] = wait_ms;
  r.stages[kiln::Stage::copy] = copy_ms;
  r.stages[kiln::Stage::forward] = wall_s * 1000.0 - wait_ms - copy_ms;
  return r;
}
bool mentions(const std::vector<std::string>& lines, const std::string& words) {
  for (const auto& l : lines)
    if (l.find(words) != std::string::npos) return true;
  return false;
}
}  // namespace

TEST(Diagnosis, CallsAnEpochWaitingOnDataInputBoundAndAdvisesMoreWorkers) {
  kiln::EpochReport r = report(10.0, 8100.0, 0.0, true);
  r.workers = 1;
  const auto lines = kiln::diagnose(r, 16).lines();
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(
      lines[0],
      "input-bound: 81 % of step time waiting for data; try DataLoaderOptions::num_workers = 4 and "
      "DataLoaderOptions::pin_memory = true");
}

TEST(Diagnosis, SaysWhenWorkersAlreadyMatchTheCores) {
  kiln::EpochReport r = report(10.0, 5000.0);
  r.workers = 2;
  EXPECT_TRUE(mentions(kiln::diagnose(r, 2).lines(), "already match the 2 cores"));
}

TEST(Diagnosis, CallsAFedLoopComputeBound) {
  const auto lines = kiln::diagnose(report(10.0, 50.0), 2).lines();
  EXPECT_EQ(lines.at(0), "compute-bound: the loader keeps up (0 % of step time waiting for data)");
}

TEST(Diagnosis, PointsPageableCopiesAtPinnedMemory) {
  const auto lines = kiln::diagnose(report(10.0, 100.0, 3000.0, true), 8).lines();
  EXPECT_TRUE(mentions(lines, "copy-bound: 30 %")) << lines.at(0);
  EXPECT_TRUE(
      mentions(lines, "try DataLoaderOptions::pin_memory = true so copies overlap compute"));
}

TEST(Diagnosis, SuggestsALargerBatchWhenGpuMemoryIsMostlyFree) {
  kiln::EpochReport r = report(10.0, 10.0, 0.0, true);
  r.gpu_memory_peak_mib = 23.0;
  r.gpu_memory_total_mib = 100.0;
  EXPECT_TRUE(
      mentions(kiln::diagnose(r, 8).lines(), "GPU memory 23 % used: batch size 256 would fit"));
  r.gpu_memory_peak_mib = 80.0;
  EXPECT_FALSE(mentions(kiln::diagnose(r, 8).lines(), "GPU memory"));
}

TEST(Diagnosis, FlagsLowGpuUtilisationOnlyWhenNotInputBound) {
  kiln::EpochReport r = report(10.0, 10.0, 0.0, true);
  r.gpu_utilization_percent = 12.0;
  EXPECT_TRUE(mentions(kiln::diagnose(r, 8).lines(), "GPU utilisation 12 %"));
  r = report(10.0, 9000.0, 0.0, true);
  r.gpu_utilization_percent = 3.0;
  EXPECT_FALSE(mentions(kiln::diagnose(r, 8).lines(), "GPU utilisation"));
}

// The loader's copies run on their own stream beside the compute stages: their time is shown
// but not taken out of the host's gap ("other").
TEST(StageTable, CopiesOverlappingComputeLeaveTheHostGapAlone) {
  kiln::EpochReport r;
  r.wall_s = 10.0;
  r.on_gpu = true;
  r.stages[kiln::Stage::forward] = 3000.0;
  r.stages[kiln::Stage::backward] = 5000.0;
  r.stages[kiln::Stage::copy] = 4000.0;  // overlapped
  const std::string table = kiln::format_stage_table(r);
  EXPECT_NE(table.find("host->device copy         4.00    40.0%"), std::string::npos) << table;
  EXPECT_NE(table.find("other (host)              2.00    20.0%"), std::string::npos) << table;
}

TEST(Diagnosis, PointsAComputeBoundFp32CpuRunWithBf16InstructionsAtBf16) {
  kiln::EpochReport r = report(10.0, 50.0);
  r.cpu_bf16_instructions = true;
  EXPECT_TRUE(
      mentions(kiln::diagnose(r, 2).lines(), "TrainerOptions::precision = MatmulPrecision::bf16"));
  r.precision = "bf16";  // already there
  EXPECT_FALSE(
      mentions(kiln::diagnose(r, 2).lines(), "TrainerOptions::precision = MatmulPrecision::bf16"));
  r.precision = "fp32";
  r.cpu_bf16_instructions = false;  // no faster on this CPU
  EXPECT_FALSE(
      mentions(kiln::diagnose(r, 2).lines(), "TrainerOptions::precision = MatmulPrecision::bf16"));
  kiln::EpochReport input_bound = report(10.0, 8000.0);
  input_bound.cpu_bf16_instructions = true;  // data, not compute, is what to fix
  EXPECT_FALSE(mentions(kiln::diagnose(input_bound, 2).lines(),
                        "TrainerOptions::precision = MatmulPrecision::bf16"));
}

TEST(Diagnosis, GivesItsFindingsAsDataAProgramCanActOn) {
  kiln::EpochReport r = report(10.0, 8100.0, 0.0, true);
  r.workers = 1;
  r.gpu_memory_peak_mib = 10.0;
  r.gpu_memory_total_mib = 100.0;
  const kiln::Diagnosis d = kiln::diagnose(r, 16);
  EXPECT_EQ(d.bottleneck, kiln::Bottleneck::input);
  EXPECT_EQ(kiln::bottleneck_name(d.bottleneck), "input");
  EXPECT_EQ(d.suggested_workers, 4);
  EXPECT_EQ(d.suggested_batch_size, 1024);
  ASSERT_GE(d.items.size(), 2u);
  EXPECT_EQ(d.items[0].finding, kiln::Finding::input_bound);
  EXPECT_DOUBLE_EQ(d.items[0].percent, 81.0);
  ASSERT_EQ(d.items[0].advice.size(), 1u);  // one group: workers and pinned memory together
  ASSERT_EQ(d.items[0].advice[0].size(), 2u);
  EXPECT_EQ(d.items[0].advice[0][0].setting, kiln::Setting::loader_workers);
  EXPECT_EQ(d.items[0].advice[0][0].value, "4");
  EXPECT_EQ(d.items[0].advice[0][1].setting, kiln::Setting::pin_memory);
  EXPECT_TRUE(d.has(kiln::Finding::larger_batch_fits));
  EXPECT_FALSE(d.has(kiln::Finding::compute_bound));
  EXPECT_EQ(d.text().rfind("diagnosis:\n  input-bound: 81 %", 0), 0u) << d.text();
  r.workers = 16;
  EXPECT_EQ(kiln::diagnose(r, 16).suggested_workers, 0);
}

TEST(EpochSummary, ShowsAccuracyOnlyForClassLabelsAndSaysWhenThereIsNoTestSplit) {
  kiln::EpochReport r = report(2.0, 0.0);
  r.epoch = 1;
  r.train_loss = 0.5;
  r.train_accuracy = 0.8;
  r.test_loss = 0.25;
  r.test_accuracy = 0.9;
  EXPECT_NE(kiln::format_epoch_summary(r, 3).find(
                "train loss 0.5000 acc 80.0 %  test loss 0.2500 acc 90.0 %"),
            std::string::npos)
      << kiln::format_epoch_summary(r, 3);
  r.train_loss = 0.0123;
  r.train_accuracy = NAN;  // float targets: loss alone
  r.test_accuracy = NAN;
  const std::string regression = kiln::format_epoch_summary(r, 3);
  EXPECT_NE(regression.find("train loss 0.0123  test loss 0.2500"), std::string::npos)
      << regression;
  EXPECT_EQ(regression.find("acc"), std::string::npos) << regression;
  r.test_split = false;
  r.test_loss = NAN;
  const std::string untested = kiln::format_epoch_summary(r, 3);
  EXPECT_NE(untested.find("train loss 0.0123  no test split"), std::string::npos) << untested;
  // Diagnosis reads timings only: a regression epoch is diagnosed like any other.
  EXPECT_TRUE(mentions(kiln::diagnose(r, 4).lines(), "compute-bound"));
}

TEST(Diagnosis, NamesTheProcessesThatShareTheCpuInsteadOfCallingItComputeBound) {
  kiln::EpochReport r = report(10.0, 50.0);
  r.process_cpu_percent = 45.0;
  r.run_queue_wait_percent = 52.0;
  r.cpu_competitors = {{4242, "cc1plus", 97.0}, {4243, "make", 6.0}};
  const kiln::Diagnosis d = kiln::diagnose(r, 2);
  EXPECT_EQ(d.bottleneck, kiln::Bottleneck::shared_cpu);
  EXPECT_FALSE(d.has(kiln::Finding::compute_bound));
  const auto lines = d.lines();
  EXPECT_EQ(lines.at(0),
            "shared CPU: this process's threads waited for a core 52 % of the time they were "
            "ready; other processes "
            "take a real share (cc1plus 97 %, make 6 %); alone on this machine the epoch would "
            "take about that much "
            "less");
  r.cpu_competitors.clear();  // a PID namespace hides them
  EXPECT_TRUE(mentions(kiln::diagnose(r, 2).lines(), "/proc shows no other process"));
  r.run_queue_wait_percent = 3.0;  // a machine of its own
  EXPECT_EQ(kiln::diagnose(r, 2).bottleneck, kiln::Bottleneck::compute);
}

TEST(Diagnosis, AModestDataWaitSuggestsWorkersOnlyWhereACoreIsIdle) {
  kiln::EpochReport r = report(10.0, 1500.0);  // 15 % waiting, workers 0
  r.process_cpu_percent = 40.0;                // of 8 cores: nearly 5 idle
  kiln::Diagnosis d = kiln::diagnose(r, 8);
  EXPECT_EQ(d.bottleneck, kiln::Bottleneck::input);
  EXPECT_EQ(d.suggested_workers, 4);
  r.process_cpu_percent = 97.0;  // of 2 cores: none idle
  d = kiln::diagnose(r, 2);
  EXPECT_EQ(d.bottleneck, kiln::Bottleneck::input);
  EXPECT_EQ(d.suggested_workers, 0);
  EXPECT_TRUE(mentions(
      d.lines(),
      "more workers cannot help here: no core is idle (this process used 97 % of the 2 cores)"))
      << d.lines().at(0);
}

TEST(Diagnosis, ReportsTheEpochWhereCpuUseFell) {
  std::vector<kiln::EpochReport> epochs;
  for (double cpu : {96.0, 95.0, 48.0, 50.0}) {
    kiln::EpochReport r = report(10.0, 50.0);
    r.epoch = static_cast<std::int64_t>(epochs.size()) + 1;
    r.process_cpu_percent = cpu;
    r.samples_per_s = 10 * cpu;
    epochs.push_back(r);
  }
  epochs[2].run_queue_wait_percent = 49.0;
  epochs[2].cpu_competitors = {{7, "yes", 99.0}};
  const auto lines = kiln::diagnose(epochs, 2).lines();
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[1],
            "CPU use fell in epoch 3: the process got 48 % of the machine there against 96 % in "
            "epoch 1 (480 against "
            "960 samples/s); its threads then waited for a core 49 % of the time (yes 99 %)");
  epochs.resize(2);
  EXPECT_FALSE(kiln::diagnose(epochs, 2).has(kiln::Finding::cpu_share_fell));
}

TEST(CpuCompetition, NamesProcessesOfOneNameTogetherBusiestFirst) {
  EXPECT_EQ(
      kiln::describe_processes(
          {{1, "cc1plus", 24.0}, {2, "yes", 30.0}, {3, "cc1plus", 24.0}, {4, "make", 6.0}}, 2),
      "cc1plus (2 processes) 48 %, yes 30 %");
}

TEST(Diagnosis, NamesTheWaitPolicyWhenSpinningThreadsTakeCoresOthersNeed) {
  kiln::EpochReport r = report(10.0, 50.0);
  r.cpu_threads = 2;
  r.run_queue_wait_percent = 40.0;  // another process shares the cores
  r.openmp_spin_waits = true;
  const kiln::Diagnosis d = kiln::diagnose(r, 2);
  EXPECT_TRUE(d.has(kiln::Finding::openmp_spinning));
  EXPECT_TRUE(mentions(d.lines(),
                       "OpenMP's 2 threads spin while they wait between parallel regions, on "
                       "cores that other processes need; try OMP_WAIT_POLICY=PASSIVE in the "
                       "environment, or kiln::prefer_passive_openmp_waiting(argv) first in main()"))
      << d.text();
  r.openmp_spin_waits = false;  // passive already
  EXPECT_FALSE(kiln::diagnose(r, 2).has(kiln::Finding::openmp_spinning));
  r.openmp_spin_waits = true;
  r.cpu_threads = 1;  // one thread has nobody to wait for
  EXPECT_FALSE(kiln::diagnose(r, 2).has(kiln::Finding::openmp_spinning));
  kiln::EpochReport alone = report(10.0, 50.0);
  alone.cpu_threads = 2;
  alone.run_queue_wait_percent = 1.0;
  alone.openmp_spin_waits = true;  // alone, fed: the spinning costs nothing
  EXPECT_FALSE(kiln::diagnose(alone, 2).has(kiln::Finding::openmp_spinning));
  kiln::EpochReport starved = report(10.0, 3000.0);  // the step waits while threads spin
  starved.cpu_threads = 2;
  starved.openmp_spin_waits = true;
  EXPECT_TRUE(mentions(kiln::diagnose(starved, 2).lines(), "cores that the loader's workers need"));
}
