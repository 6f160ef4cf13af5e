// The Trainer's loop (training/trainer_impl.h). One epoch: for each batch, forward + loss,
// backward, optimizer step, each a profiled stage (the step runner), then the observers'
// on_step_end (the NaN guard first, then the console reporter's progress line); running metrics
// stay on the device. Around the steps, the report's measurement: loader statistics, stage
// times, the process's CPU time and who else took the cores, GPU utilisation and memory.
#include <algorithm>
#include <chrono>

#include "kiln/core/cpu_compute.h"
#include "kiln/core/cpu_description.h"
#include "kiln/core/memory.h"
#include "kiln/core/openmp_wait_policy.h"
#include "kiln/core/parallel.h"
#include "kiln/distributed/data_parallel.h"
#include "kiln/training/fit_checks.h"
#include "kiln/training/trainer_impl.h"

namespace kiln {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

}  // namespace

int Trainer::Impl::machine_cores() { return cpu_description().logical_cpus; }

Tensor Trainer::Impl::train_step(const Batch& batch, std::int64_t steps_left) {
  runner.prepare_replicas();
  Tensor mean_loss = runner.step(batch, *schedule, state.global_step, steps_left);
  ++state.global_step;
  state.batch_size = batch.x.size(0) * comm.world_size();  // the last step's batch over all ranks
  return mean_loss;
}

std::int64_t Trainer::Impl::steps_per_epoch(const DataLoader& train) const {
  const std::int64_t all = train.batches_per_epoch();
  return o.max_steps > 0 ? std::min(o.max_steps, all) : all;
}

void Trainer::Impl::settle_position(const DataLoader& train) {
  const std::int64_t steps = steps_per_epoch(train);
  KILN_CHECK(state.batches_done <= steps,
             "the checkpoint records {} batches of epoch {} done, but an epoch here has {} steps: "
             "was it made with other data?",
             state.batches_done, state.epoch + 1, steps);
  if (state.batches_done == steps && steps > 0) {
    ++state.epoch;
    state.batches_done = 0;
  }
}

EpochReport Trainer::Impl::begin_report(const DataLoader& train) const {
  EpochReport report;
  report.epoch = state.epoch + 1;
  report.device = device.str();
  report.on_gpu = device.is_cuda();
  report.batch_size = train.options().batch_size * comm.world_size();
  report.workers = train.options().num_workers;
  report.pin_memory = train.options().pin_memory;
  report.loader_tuning = loader_tuning;
  report.cpu_threads = num_threads();
  report.precision = matmul_precision_name(matmul_precision());
  report.cpu_bf16_instructions = cpu_has_bf16_instructions();
  report.openmp_spin_waits = !openmp_waits_passively();
  return report;
}

void Trainer::Impl::fill_resources(const DataLoader& train, EpochReport& report, double cpu_seconds,
                                   GpuMonitor& monitor, const CpuSample& cpu_before) {
  const LoaderStats loader = train.stats();
  report.stages[Stage::data_wait] += loader.wait_ms;
  report.stages[Stage::copy] += loader.copy_ms;  // on the copy stream, beside the compute stages
  report.queue_occupancy = loader.mean_queue_occupancy;
  report.queue_capacity = loader.queue_capacity;
  double busy = 0.0;
  for (double ms : loader.worker_busy_ms) busy += ms;
  const double wall_ms = report.wall_s * 1000.0;
  const int workers = std::max(1, report.workers);
  report.loader_busy_percent = wall_ms > 0 ? 100.0 * busy / (wall_ms * workers) : 0.0;
  report.process_cpu_percent =
      report.wall_s > 0 ? 100.0 * cpu_seconds / (report.wall_s * machine_cores()) : 0.0;
  const CpuShare share = cpu_share_between(cpu_before, sample_cpu(true));
  report.run_queue_wait_percent = share.wait_percent();
  report.steal_percent = share.steal_percent;
  report.cpu_competitors = share.others;
  report.gpu_utilization_percent = monitor.stop();
  if (device.is_cuda()) {
    const MemoryStats m = memory_stats(device);
    const DeviceMemoryInfo info = device_memory_info(device);
    report.gpu_memory_in_use_mib = static_cast<double>(m.reserved) / 1048576.0;
    report.gpu_memory_peak_mib = static_cast<double>(m.peak_reserved) / 1048576.0;
    report.gpu_memory_total_mib = static_cast<double>(info.total) / 1048576.0;
  }
}

struct Trainer::Impl::PeriodMeter {
  explicit PeriodMeter(Device device) : monitor(device) {}
  GpuMonitor monitor;
  double cpu_start = 0.0;
  CpuSample cpu_before;
  Clock::time_point start;
};

void Trainer::Impl::begin_period(DataLoader& train, PeriodMeter& meter) {
  train.reset_stats();
  profiler.read_and_reset();
  metrics.reset();
  runner.reset_graph();  // evaluation may have moved buffers
  if (device.is_cuda()) reset_peak_memory_stats(device);
  meter.monitor.start();
  meter.cpu_start = process_cpu_seconds();
  meter.cpu_before = sample_cpu(true);  // who else takes the cores, read at the period's end
  meter.start = Clock::now();
}

void Trainer::Impl::end_period(const DataLoader& train, EpochReport& report, PeriodMeter& meter) {
  report.stages = profiler.read_and_reset();  // waits for the last GPU step
  report.wall_s = seconds_since(meter.start);
  report.samples_per_s = static_cast<double>(report.samples) / std::max(report.wall_s, 1e-9);
  report.lr = optimizer.lr();
  const auto values = sum_over_ranks(metrics.read(), comm);
  report.train_loss = values.mean_loss;
  report.train_accuracy = values.accuracy;
  fill_resources(train, report, process_cpu_seconds() - meter.cpu_start, meter.monitor,
                 meter.cpu_before);
}

EpochReport Trainer::Impl::train_epoch(Trainer& owner, DataLoader& train, bool& interrupted) {
  EpochReport report = begin_report(train);
  train.set_epoch(state.epoch);
  PeriodMeter meter(device);
  begin_period(train, meter);
  for (const auto& observer : observers) observer->on_epoch_begin(owner, state.epoch + 1);
  const std::int64_t total = train.batches_per_epoch();
  const std::int64_t steps = steps_per_epoch(train);
  const std::int64_t check_every = device.is_cpu() ? 1 : 50;  // the ranks' stop agreement, below
  const std::int64_t skip = state.batches_done;
  std::int64_t done = skip;
  // Resuming inside an epoch starts at its next batch, unloaded ones before it: the order is the
  // same, read by position.
  for (auto it = train.begin_at(skip); it != train.end(); ++it) {
    const Batch& batch = *it;
    for (const auto& observer : observers) observer->on_step_begin(owner, state.global_step);
    const Tensor mean_loss = train_step(batch, steps - done);
    ++done;
    report.samples += batch.x.size(0) * comm.world_size();
    const StepEnd step_end{state.epoch + 1, done, total, mean_loss, report.batch_size, &metrics};
    for (const auto& observer : observers) observer->on_step_end(owner, step_end);
    // Ranks must stop at the same step: with several, they agree every check_every steps.
    bool stopping = o.stop && o.stop->load();
    if (comm.world_size() > 1)
      stopping = (done % std::max<std::int64_t>(check_every, 10) == 0 || done == total) &&
                 any_rank_stopping(stopping, comm);
    if (stopping || done >= steps) {
      interrupted = stopping;
      break;
    }
  }
  report.batches = done - skip;
  report.epoch_samples = train.samples_per_epoch() * comm.world_size();
  state.batches_done = done;
  end_period(train, report, meter);
  return report;
}

EpochReport Trainer::Impl::train_period(Trainer& owner, DataLoader& train, std::int64_t period,
                                        std::int64_t period_end, bool& interrupted) {
  EpochReport report = begin_report(train);
  report.epoch = period;
  PeriodMeter meter(device);
  begin_period(train, meter);
  for (const auto& observer : observers) observer->on_epoch_begin(owner, period);
  const std::int64_t first_step = state.global_step;
  const std::int64_t period_steps = period_end - first_step;
  while (state.global_step < period_end && !interrupted) {
    train.set_epoch(state.epoch);
    // Resuming inside a loader epoch (after an evaluation, or from a checkpoint) starts at its
    // next batch; the order is the same, read by position, and nothing before it is loaded.
    for (auto it = train.begin_at(state.batches_done); it != train.end(); ++it) {
      const Batch& batch = *it;
      for (const auto& observer : observers) observer->on_step_begin(owner, state.global_step);
      const Tensor mean_loss = train_step(batch, o.steps - state.global_step);
      ++state.batches_done;
      report.samples += batch.x.size(0) * comm.world_size();
      const StepEnd step_end{
          period,  state.global_step - first_step, period_steps, mean_loss, report.batch_size,
          &metrics};
      for (const auto& observer : observers) observer->on_step_end(owner, step_end);
      // Ranks must stop at the same step: with several, they agree every 10 steps and at the end.
      bool stopping = o.stop && o.stop->load();
      if (comm.world_size() > 1)
        stopping = (state.global_step % 10 == 0 || state.global_step == period_end) &&
                   any_rank_stopping(stopping, comm);
      if (stopping) interrupted = true;
      if (stopping || state.global_step >= period_end) break;
    }
    if (state.batches_done >= train.batches_per_epoch()) {
      ++state.epoch;
      state.batches_done = 0;
    }
  }
  report.batches = state.global_step - first_step;
  report.epoch_samples = period_steps * report.batch_size;
  end_period(train, report, meter);
  return report;
}

void Trainer::Impl::check_first_step(const DataLoader& train) {
  if (state.global_step != 0) return;
  check_model_fits_data(model, train, o.input_shape);
  check_training_fits_memory(model, optimizer, train, o.input_shape, device);
}

void Trainer::Impl::record_run() {
  state.model = o.run.model;
  state.model_structure = describe_structure(model);
  state.data = o.run.data;
  state.optimizer = o.run.optimizer;  // empty: the Checkpointer records optimizer.describe()
  state.batch_size = 1;               // until a step has been taken
  state.seed = o.run.seed.value_or(0);
  state.run = o.run;
  state.vocabulary = o.vocabulary;
}

}  // namespace kiln
