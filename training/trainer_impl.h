// Trainer::Impl: what one Trainer holds (the model, optimizer and loss it was given, its options
// and communicator, the step runner, the run's position, the observers) and the loop over it.
// Internal to the Trainer, shared by its two halves: trainer.cpp, the public API (construction
// and its checks, fit, evaluation, checkpoints), and trainer_loop.cpp, the loop (the training
// half of an epoch or of a step-counted period, and what its report measures).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "kiln/monitor/cpu_competition.h"
#include "kiln/monitor/gpu_monitor.h"
#include "kiln/training/checkpointer.h"
#include "kiln/training/step_runner.h"
#include "kiln/training/trainer.h"

namespace kiln {

struct Trainer::Impl {
  Module& model;
  Optimizer& optimizer;
  Loss& loss;
  TrainerOptions o;
  std::unique_ptr<Communicator> own_comm;  // this process alone, when the options name none
  Communicator& comm;
  Device device;
  bool root = comm.rank() == 0;  // prints, logs and writes checkpoints
  std::unique_ptr<LrSchedule> schedule;
  StepRunner runner;  // the eager, graphed or replicated step (training/step_runner.h)
  StepProfiler& profiler = runner.profiler();
  RunningMetrics& metrics = runner.metrics();
  std::shared_ptr<Checkpointer> checkpointer;  // rank 0 with a folder only (also an observer)
  TrainingState state;
  std::vector<std::shared_ptr<TrainingObserver>> observers;
  bool stop_requested = false;
  std::int64_t steps_left_hint = 1000;        // the recorded update's rows, outside fit_epoch
  bool interrupted = false;                   // the last epoch was ended by a stop request
  RunFingerprint fingerprint;                 // set once the options are checked
  std::optional<LoaderTuning> loader_tuning;  // what tune_loader chose, once it ran
  bool resumed = false;                       // resume() loaded a checkpoint
  DataLoader* fit_test = nullptr;             // the test loader of the fit in progress

  Impl(Module& m, Optimizer& opt, Loss& l, TrainerOptions options,
       std::unique_ptr<Communicator> single)
      : model(m), optimizer(opt), loss(l), o(std::move(options)), own_comm(std::move(single)),
        comm(o.comm != nullptr ? *o.comm : *own_comm),
        device(comm.device().is_cuda() ? comm.device() : o.device), schedule(constant_lr(opt.lr())),
        runner(
            m, opt, l, comm, device,
            {o.input_shape, o.cuda_graph, o.bucket_mb, root ? o.out : nullptr, o.clip_grad_norm}) {}

  std::ostream* out() const { return root ? o.out : nullptr; }
  const SettingWords& words() const {
    return o.setting_words ? *o.setting_words : api_setting_words();
  }
  // The machine's logical CPUs: what the report's CPU shares and the diagnosis count in.
  static int machine_cores();

  // One step on `batch` (the recorded update's rows: `steps_left`); the position moves on.
  Tensor train_step(const Batch& batch, std::int64_t steps_left);
  std::int64_t steps_per_epoch(const DataLoader& train) const;
  // A checkpoint taken at the end of an epoch's steps stands at the start of the next one.
  void settle_position(const DataLoader& train);
  // The training half of an epoch; `interrupted` when a stop request ended it early.
  EpochReport train_epoch(Trainer& owner, DataLoader& train, bool& interrupted);
  // The training half of a step-counted run's report: steps until `period_end` (or a stop
  // request, which sets `interrupted`), crossing the loader's epochs; the position is kept as in
  // an epoch-counted run (loader epoch, batches of it done, global step), so checkpoints resume
  // at the step.
  EpochReport train_period(Trainer& owner, DataLoader& train, std::int64_t period,
                           std::int64_t period_end, bool& interrupted);
  // Before a run's first step: the model must fit the data, and its training in memory.
  void check_first_step(const DataLoader& train);
  // What every checkpoint records of the run beside its position.
  void record_run();

  // What a training report measures from its first step: the GPU's use, the process's CPU time,
  // who else takes the cores, the wall clock.
  struct PeriodMeter;
  // The report's settings: device, batch, loader, threads, precision.
  EpochReport begin_report(const DataLoader& train) const;
  // Clears what a training report reads (loader stats, stage times, metrics, the graph, peak
  // memory) and starts `meter`: shared by epochs and step-counted periods.
  void begin_period(DataLoader& train, PeriodMeter& meter);
  // The measured half of the report once the period's steps are done.
  void end_period(const DataLoader& train, EpochReport& report, PeriodMeter& meter);
  void fill_resources(const DataLoader& train, EpochReport& report, double cpu_seconds,
                      GpuMonitor& monitor, const CpuSample& cpu_before);
};

}  // namespace kiln
