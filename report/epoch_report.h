// EpochReport: everything measured about one training epoch — the figures train prints, the
// JSON-lines log records and the diagnosis reads.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/data/loader_tuning.h"
#include "kiln/monitor/cpu_competition.h"
#include "kiln/monitor/step_profiler.h"

namespace kiln {

struct EpochReport {
  std::int64_t epoch = 0;  // 1-based, as printed
  std::string device;      // "cpu", "cuda:0"
  bool on_gpu = false;
  std::int64_t batch_size = 0;
  std::int64_t batches = 0;
  std::int64_t samples = 0;        // trained in this epoch (fewer than a whole one with max_steps)
  std::int64_t epoch_samples = 0;  // in a whole epoch, all ranks together
  int workers = 0;
  bool pin_memory = false;
  // Set when TrainerOptions::loader_tuning chose workers and pin_memory at the start of the run.
  std::optional<LoaderTuning> loader_tuning;
  int cpu_threads = 0;
  std::string precision = "fp32";      // of matrix products and convolutions (core/precision.h)
  bool cpu_bf16_instructions = false;  // the CPU multiplies bf16 in hardware (core/cpu_compute.h)
  bool openmp_spin_waits = false;      // OpenMP's idle threads spin (core/openmp_wait_policy.h)
  double lr = 0.0;

  double wall_s = 0.0;
  double samples_per_s = 0.0;
  double train_loss = NAN, train_accuracy = NAN;
  double test_loss = NAN, test_accuracy = NAN;  // accuracy NaN for float targets (regression)
  // A run counted in steps (TrainerOptions::steps): the step this report ends at and the run's
  // steps; 0 in an epoch-counted run.
  std::int64_t step = 0, steps = 0;
  // The loss is a sequence's cross-entropy: its perplexity exp(loss) is shown beside it.
  bool perplexity = false;
  bool test_split = true;  // false: no test split was given (a test share of 0): nothing evaluated

  StageTotals stages;              // milliseconds per stage over the epoch
  double process_cpu_percent = 0;  // CPU time of the process / (wall time * cores), in %
  // Of the time the process's threads were ready to run, the share they waited for a core
  // (/proc/self/task/*/schedstat; -1: the kernel does not say): other processes' share.
  double run_queue_wait_percent = -1;
  double steal_percent = -1;  // of all CPUs' time, taken by a hypervisor (-1: unknown)
  std::vector<ProcessShare> cpu_competitors;  // other processes using 5 % of a core or more
  double loader_busy_percent = 0;             // worker busy time / (wall time * workers), in %
  double queue_occupancy = 0;                 // mean batches ready when the loop asked for one
  std::int64_t queue_capacity = 0;

  // GPU only (0 or negative when unknown).
  double gpu_memory_in_use_mib = 0, gpu_memory_peak_mib = 0, gpu_memory_total_mib = 0;
  double gpu_utilization_percent = -1;  // from NVML, sampled during the epoch

  double step_ms() const { return wall_s * 1000.0; }
  double stage_percent(Stage s) const { return wall_s > 0 ? 100.0 * stages[s] / step_ms() : 0.0; }
};

}  // namespace kiln
