// The training loop. One epoch: for each batch, forward + loss, backward, optimizer step, each a
// profiled stage, then the observers' on_step_end (the NaN guard first, then the console
// reporter's progress line); running metrics stay on the device. After the epoch: evaluation,
// the report, then the observers' on_epoch_end (the checkpointer, the console reporter, the JSON
// log, yours, the hooks).
#include "kiln/training/trainer.h"

#include <chrono>
#include <cmath>
#include <ostream>

#include "kiln/core/cpu_compute.h"
#include "kiln/core/cpu_description.h"
#include "kiln/core/memory.h"
#include "kiln/core/openmp_wait_policy.h"
#include "kiln/core/ops.h"
#include "kiln/core/parallel.h"
#include "kiln/distributed/communicator.h"
#include "kiln/distributed/data_parallel.h"
#include "kiln/distributed/rank_agreement.h"
#include "kiln/training/checkpoint.h"
#include "kiln/training/checkpointer.h"
#include "kiln/training/console_reporter.h"
#include "kiln/training/cpu_competition.h"
#include "kiln/training/fit_checks.h"
#include "kiln/training/gpu_monitor.h"
#include "kiln/training/json_log.h"
#include "kiln/training/nan_guard.h"
#include "kiln/training/step_runner.h"

namespace kiln {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

int machine_cores() { return cpu_description().logical_cpus; }

// on_epoch_end(hook) as an observer.
class EpochHookObserver : public TrainingObserver {
 public:
  explicit EpochHookObserver(Trainer::EpochHook hook) : hook_(std::move(hook)) {}
  void on_epoch_end(Trainer& trainer, const EpochReport& report) override { hook_(trainer, report); }

 private:
  Trainer::EpochHook hook_;
};

// Throws kiln::Error listing every field of the run recorded in `saved` that differs from this
// run's, where both recorded it. Checkpoints of kiln-checkpoint-2 recorded the run as settings
// keyed by the caller's names: those are compared with TrainerOptions::legacy_settings, key by
// key. Checkpoints written before kiln recorded settings are compared by their run description
// alone: model, data, batch and optimizer. A model without a spec is compared by its structure.
void check_resumable(const TrainerOptions& o, const Module& model, const TrainingState& saved) {
  std::vector<std::string> differences;
  auto compare = [&](Setting name, const std::string& recorded, const std::string& now) {
    if (!recorded.empty() && !now.empty() && recorded != now)
      differences.push_back(fmt::format("{} {} (this run: {})", name, recorded, now));
  };
  if (o.run.model.empty())
    compare(Setting::model_structure, saved.model_structure, describe_structure(model));
  if (saved.legacy_settings.empty() && saved.run == RunDescription{}) {
    const RunDescription& run = o.run;
    compare(Setting::run_batch_size, std::to_string(saved.batch_size),
            run.batch_size > 0 ? std::to_string(run.batch_size) : "");
    compare(Setting::run_data, saved.data, run.data);
    compare(Setting::run_model, saved.model, run.model);
    compare(Setting::run_optimizer, saved.optimizer, run.optimizer);
  }
  const std::vector<RunField> now = description_fields(o.run), then = description_fields(saved.run);
  for (std::size_t i = 0; i < now.size(); ++i)
    if (then[i].value && now[i].value && *then[i].value != *now[i].value)
      differences.push_back(fmt::format("{} {} (this run: {})", now[i].setting, *then[i].value, *now[i].value));
  if (saved.vocabulary && o.vocabulary && *saved.vocabulary != *o.vocabulary)
    differences.push_back(vocabulary_difference(*saved.vocabulary, *o.vocabulary));
  for (const auto& [name, value] : o.legacy_settings) {
    const auto it = saved.legacy_settings.find(name);
    if (it != saved.legacy_settings.end() && it->second != value)
      differences.push_back(fmt::format("{} {} (this run: {})", name, it->second, value));
  }
  KILN_CHECK(differences.empty(),
             "the checkpoint in '{}' was made with {}; resume with the checkpoint's settings, or "
             "start fresh in another {} folder",
             o.checkpoint_dir, fmt::join(differences, ", "), Setting::checkpoint_dir);
}

// What the ranks compare: the run's whole fingerprint, each field by name.
std::vector<NamedSetting> rank_settings(const RunFingerprint& fingerprint) {
  std::vector<NamedSetting> settings;
  for (const RunField& field : fingerprint_fields(fingerprint))
    settings.emplace_back(fmt::format("{}", field.setting), field.value.value_or(""));
  return settings;
}

}  // namespace

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
  std::int64_t steps_left_hint = 1000;  // the recorded update's rows, outside fit_epoch
  bool interrupted = false;             // the last epoch was ended by a stop request
  RunFingerprint fingerprint;           // set once the options are checked
  std::optional<LoaderTuning> loader_tuning;  // what tune_loader chose, once it ran
  bool resumed = false;                       // resume() loaded a checkpoint
  DataLoader* fit_test = nullptr;             // the test loader of the fit in progress

  Impl(Module& m, Optimizer& opt, Loss& l, TrainerOptions options, std::unique_ptr<Communicator> single)
      : model(m), optimizer(opt), loss(l), o(std::move(options)), own_comm(std::move(single)),
        comm(o.comm != nullptr ? *o.comm : *own_comm),
        device(comm.device().is_cuda() ? comm.device() : o.device),
        schedule(constant_lr(opt.lr())),
        runner(m, opt, l, comm, device,
               {o.input_shape, o.cuda_graph, o.bucket_mb, root ? o.out : nullptr, o.clip_grad_norm}) {}

  std::ostream* out() const { return root ? o.out : nullptr; }
  const SettingWords& words() const { return o.setting_words ? *o.setting_words : api_setting_words(); }

  Tensor train_step(const Batch& batch, std::int64_t steps_left) {
    runner.prepare_replicas();
    Tensor mean_loss = runner.step(batch, *schedule, state.global_step, steps_left);
    ++state.global_step;
    state.batch_size = batch.x.size(0) * comm.world_size();  // the last step's batch over all ranks
    return mean_loss;
  }

  std::int64_t steps_per_epoch(const DataLoader& train) const {
    const std::int64_t all = train.batches_per_epoch();
    return o.max_steps > 0 ? std::min(o.max_steps, all) : all;
  }

  // A checkpoint taken at the end of an epoch's steps stands at the start of the next one.
  void settle_position(const DataLoader& train) {
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

  EpochReport begin_report(const DataLoader& train) const {
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

  void fill_resources(const DataLoader& train, EpochReport& report, double cpu_seconds, GpuMonitor& monitor,
                      const CpuSample& cpu_before) {
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
    report.process_cpu_percent = report.wall_s > 0 ? 100.0 * cpu_seconds / (report.wall_s * machine_cores()) : 0.0;
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

  // What a training report measures from its first step: the GPU's use, the process's CPU time,
  // who else takes the cores, the wall clock.
  struct PeriodMeter {
    explicit PeriodMeter(Device device) : monitor(device) {}
    GpuMonitor monitor;
    double cpu_start = 0.0;
    CpuSample cpu_before;
    Clock::time_point start;
  };

  // Clears what a training report reads (loader stats, stage times, metrics, the graph, peak
  // memory) and starts `meter`: shared by epochs and step-counted periods.
  void begin_period(DataLoader& train, PeriodMeter& meter) {
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

  // The measured half of the report once the period's steps are done.
  void end_period(const DataLoader& train, EpochReport& report, PeriodMeter& meter) {
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

  // The training half of an epoch; `interrupted` when a stop request ended it early.
  EpochReport train_epoch(Trainer& owner, DataLoader& train, bool& interrupted) {
    EpochReport report = begin_report(train);
    train.set_epoch(state.epoch);
    PeriodMeter meter(device);
    begin_period(train, meter);
    for (const auto& observer : observers) observer->on_epoch_begin(owner, state.epoch + 1);
    const std::int64_t total = train.batches_per_epoch();
    const std::int64_t steps = steps_per_epoch(train);
    const std::int64_t check_every = device.is_cpu() ? 1 : 50;  // the ranks' stop agreement, below
    const std::int64_t skip = state.batches_done;
    std::int64_t done = 0;
    for (const Batch& batch : train) {
      if (done < skip) {  // resuming inside an epoch: the order is the same, so skip what was trained
        ++done;
        continue;
      }
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

  // The training half of a step-counted run's report: steps until `period_end` (or a stop
  // request, which sets `interrupted`), crossing the loader's epochs; the position is kept as in
  // an epoch-counted run (loader epoch, batches of it done, global step), so checkpoints resume
  // at the step.
  EpochReport train_period(Trainer& owner, DataLoader& train, std::int64_t period, std::int64_t period_end,
                           bool& interrupted) {
    EpochReport report = begin_report(train);
    report.epoch = period;
    PeriodMeter meter(device);
    begin_period(train, meter);
    for (const auto& observer : observers) observer->on_epoch_begin(owner, period);
    const std::int64_t first_step = state.global_step;
    const std::int64_t period_steps = period_end - first_step;
    while (state.global_step < period_end && !interrupted) {
      train.set_epoch(state.epoch);
      const std::int64_t skip = state.batches_done;
      std::int64_t seen = 0;
      for (const Batch& batch : train) {
        if (seen++ < skip) continue;  // resuming inside a loader epoch: the order is the same
        for (const auto& observer : observers) observer->on_step_begin(owner, state.global_step);
        const Tensor mean_loss = train_step(batch, o.steps - state.global_step);
        ++state.batches_done;
        report.samples += batch.x.size(0) * comm.world_size();
        const StepEnd step_end{period, state.global_step - first_step, period_steps, mean_loss, report.batch_size,
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

  // Before a run's first step: the model must fit the data, and its training in memory.
  void check_first_step(const DataLoader& train) {
    if (state.global_step != 0) return;
    check_model_fits_data(model, train, o.input_shape);
    check_training_fits_memory(model, optimizer, train, o.input_shape, device);
  }

  // What every checkpoint records of the run beside its position.
  void record_run() {
    state.model = o.run.model;
    state.model_structure = describe_structure(model);
    state.data = o.run.data;
    state.optimizer = o.run.optimizer;  // empty: the Checkpointer records optimizer.describe()
    state.batch_size = 1;  // until a step has been taken
    state.seed = o.run.seed.value_or(0);
    state.run = o.run;
    state.vocabulary = o.vocabulary;
  }
};

Trainer::Trainer(Module& model, Optimizer& optimizer, Loss& loss, TrainerOptions options) {
  const Device wanted = options.comm != nullptr && options.comm->device().is_cuda() ? options.comm->device()
                                                                                     : options.device;
  if (wanted.is_cuda())
    KILN_CHECK(cuda_available(), "training on {} asks for a GPU, but none can be used: {}; train on the CPU",
               wanted.str(), cuda_unavailable_reason());
  std::unique_ptr<Communicator> single = options.comm ? nullptr : make_single_process_communicator(wanted);
  impl_ = std::make_unique<Impl>(model, optimizer, loss, std::move(options), std::move(single));
  Impl& r = *impl_;
  const TrainerOptions& o = r.o;
  KILN_CHECK(r.comm.device() == r.device || r.comm.is_single_process(),
             "the trainer's device {} does not match the communicator ({}), which works on {}", r.device.str(),
             r.comm.describe(), r.comm.device().str());
  const MatmulPrecision precision = o.precision.value_or(matmul_precision());
  KILN_CHECK(precision != MatmulPrecision::tf32 || r.device.is_cuda(),
             "{} is a GPU tensor-core format the CPU does not have; use {} or bf16",
             SettingValue{Setting::precision, "tf32"}, SettingValue{Setting::precision, "fp32"});
  KILN_CHECK(o.keep_checkpoints >= 1, "{} must be at least 1, found {}", Setting::keep_checkpoints,
             o.keep_checkpoints);
  KILN_CHECK(o.bucket_mb > 0 && o.bucket_mb <= 1048576, "{} must be in (0, 1048576] MiB, found {}",
             Setting::bucket_mb, o.bucket_mb);
  KILN_CHECK(std::isfinite(o.clip_grad_norm) && o.clip_grad_norm >= 0.0f,
             "{} must be a finite value >= 0 (0: no clipping), found {}", Setting::clip_grad_norm,
             o.clip_grad_norm);
  KILN_CHECK(o.max_steps >= 0, "{} must be >= 0 (0: whole epochs), found {}", Setting::max_steps,
             o.max_steps);
  KILN_CHECK(o.steps >= 0 && o.eval_interval >= 0 && o.eval_iters >= 0,
             "{} ({}), eval_interval ({}) and eval_iters ({}) must be >= 0", Setting::steps, o.steps,
             o.eval_interval, o.eval_iters);
  KILN_CHECK(o.steps == 0 || o.max_steps == 0,
             "{} {} counts the run in steps, and {} {} cuts epochs short: give one of the two",
             Setting::steps, o.steps, Setting::max_steps, o.max_steps);
  for (const Parameter* p : optimizer.parameters())
    KILN_CHECK(p->value.device() == r.device,
               "parameter '{}' is on {} but the trainer trains on {}: call model.to(device) before building "
               "the optimizer",
               p->name, p->value.device().str(), r.device.str());
  check_optimizer_updates_model(model, optimizer);
  set_matmul_precision(precision);
  r.o.run.clip_grad_norm = o.clip_grad_norm;  // the record's, so a resume with another is refused
  r.fingerprint = {o.run, describe_structure(model), matmul_precision_name(precision),
                   o.bucket_mb, o.cuda_graph, o.max_steps};
  check_ranks_agree(rank_settings(r.fingerprint), r.comm,
                    fmt::format("the ranks of this job ({}) describe different runs", r.comm.describe()),
                    fmt::format("{}", Setting::same_settings_on_every_rank));
  if (o.cuda_graph) {
    KILN_CHECK(r.device.is_cuda(),
               "{} records GPU work and the CPU runs each op as it comes; use it with {}",
               Setting::cuda_graph, Setting::gpu_device);
    KILN_CHECK(r.comm.is_single_process(),
               "{} trains in one process on one GPU, and data-parallel gradients are exchanged "
               "from inside backward; drop {} or the other ranks",
               Setting::cuda_graph, Setting::cuda_graph);
    const std::string blocker = model.graph_capture_blocker();
    KILN_CHECK(blocker.empty(), "{} cannot replay this model: {}; drop {}", Setting::cuda_graph,
               blocker, Setting::cuda_graph);
    r.runner.recordable_optimizer();  // throws unless the optimizer's update can be recorded
  }
  model.set_input_grad_wanted(false);  // the input is data: no gradient of it to make
  r.record_run();
  // A GPU read of the loss is a sync: there it is checked every 50 steps.
  r.observers.push_back(std::make_shared<NanGuard>(r.device.is_cpu() ? 1 : 50));
  if (r.root) {  // every output opened before any work, so a bad path never costs an epoch
    if (!o.checkpoint_dir.empty()) {
      r.checkpointer = std::make_shared<Checkpointer>(o.checkpoint_dir, o.keep_checkpoints, model, optimizer);
      r.observers.push_back(r.checkpointer);
    }
    if (o.out != nullptr) r.observers.push_back(std::make_shared<ConsoleReporter>(*o.out, o.progress, r.words()));
    if (!o.log_json.empty()) r.observers.push_back(std::make_shared<JsonLog>(o.log_json));
  }
}

Trainer::~Trainer() = default;

void Trainer::set_schedule(std::unique_ptr<LrSchedule> schedule) {
  KILN_CHECK(schedule != nullptr, "Trainer::set_schedule with a null schedule");
  impl_->schedule = std::move(schedule);
}

Tensor Trainer::step(const Batch& batch) {
  Impl& r = *impl_;
  return r.train_step(batch, r.steps_left_hint);
}

RunningMetrics::Values Trainer::evaluate(DataLoader& data) { return evaluate(data, 0); }

RunningMetrics::Values Trainer::evaluate(DataLoader& data, std::int64_t max_batches) {
  Impl& r = *impl_;
  KILN_CHECK(max_batches >= 0, "Trainer::evaluate: max_batches must be >= 0 (0: all), found {}", max_batches);
  r.runner.prepare_replicas();
  if (!r.comm.is_single_process()) broadcast_buffers_from_rank0(r.model, r.comm);
  r.runner.reset_graph();  // the loss's and the modules' buffers take other shapes here
  const bool was_training = r.model.is_training();
  r.model.eval();
  RunningMetrics metrics(r.device);
  try {
    std::int64_t batches = 0;
    for (const Batch& batch : data) {
      const Tensor& output = r.model.forward(r.runner.as_input(batch.x));
      metrics.update(output, batch.y, r.loss.forward(output, batch.y));
      if (++batches == max_batches) break;
    }
  } catch (...) {
    r.model.train(was_training);
    throw;
  }
  r.model.train(was_training);
  return sum_over_ranks(metrics.read(), r.comm);
}

LoaderTuning Trainer::tune_loader(DataLoader& train, const LoaderTuningOptions& options) {
  Impl& r = *impl_;
  check_loader_has_batches(train);
  r.runner.reset_graph();  // the modules' buffers may take other shapes here
  const bool was_training = r.model.is_training();
  r.model.eval();  // no dropout draw, no running statistic moves: the run's numbers stay its own
  RunningMetrics metrics(r.device);
  const LoaderConsumer consumer{
      [&](const Batch& batch) {
        const Tensor& output = r.model.forward(r.runner.as_input(batch.x));
        metrics.update(output, batch.y, r.loss.forward(output, batch.y));
      },
      [&] { (void)metrics.read(); }};  // waits for the trial's device work
  LoaderTuning tuning;
  try {
    tuning = kiln::tune_loader(train, options, consumer, machine_cores());
  } catch (...) {
    r.model.train(was_training);
    throw;
  }
  r.model.train(was_training);
  r.loader_tuning = tuning;
  if (std::ostream* out = r.out()) *out << "  loader tuned: " << describe(tuning) << "\n";
  return tuning;
}

EpochReport Trainer::fit_epoch(DataLoader& train, DataLoader* test) {
  Impl& r = *impl_;
  check_loader_has_batches(train);
  r.settle_position(train);
  bool& interrupted = r.interrupted;
  interrupted = false;
  EpochReport report = r.train_epoch(*this, train, interrupted);
  report.test_split = test != nullptr;
  report.perplexity = r.loss.reports_perplexity();
  if (test != nullptr && !interrupted) {
    const auto values = evaluate(*test);
    report.test_loss = values.mean_loss;
    report.test_accuracy = values.accuracy;
  }
  if (!interrupted) {
    ++r.state.epoch;
    r.state.batches_done = 0;
  }
  for (const auto& observer : r.observers) observer->on_epoch_end(*this, report);
  return report;
}

FitResult Trainer::fit(DataLoader& train, std::int64_t epochs, DataLoader* test) {
  Impl& r = *impl_;
  KILN_CHECK(epochs >= 1, "{} must be at least 1, found {}", Setting::epochs, epochs);
  KILN_CHECK(r.o.steps == 0, "{} {} counts the run in steps: train it with fit_steps, not fit", Setting::steps,
             r.o.steps);
  // fit's epochs count the run's epochs in all (a resumed run goes on to them), so a second
  // fit with the same count has nothing left to train: said, not returned empty.
  KILN_CHECK(
      r.state.epoch < epochs,
      "{} {} counts the epochs in all, and this run has trained {} already{}: give "
      "more than {} ({} {} trains {} more)",
      Setting::epochs, epochs, r.state.epoch, r.resumed ? " (with its checkpoint's)" : "", r.state.epoch,
      Setting::epochs, r.state.epoch + epochs, epochs);
  r.check_first_step(train);
  r.settle_position(train);
  if (r.o.loader_tuning && !r.loader_tuning) {
    train.set_epoch(r.state.epoch);  // the trials read the epoch that training starts with
    tune_loader(train, *r.o.loader_tuning);
  }
  r.stop_requested = false;
  r.fit_test = test;
  FitResult result;
  for (const auto& observer : r.observers) observer->on_fit_begin(*this, epochs);
  while (r.state.epoch < epochs) {
    result.epochs.push_back(fit_epoch(train, test));
    if (r.interrupted) {
      result.interrupted = true;
      break;
    }
    if (r.stop_requested) {
      result.stopped_early = r.state.epoch < epochs;
      break;
    }
  }
  if (!result.epochs.empty()) result.diagnosis = kiln::diagnose(result.epochs, machine_cores());
  for (const auto& observer : r.observers) observer->on_fit_end(*this, result);
  return result;
}

FitResult Trainer::fit_steps(DataLoader& train, DataLoader* test) {
  Impl& r = *impl_;
  const TrainerOptions& o = r.o;
  KILN_CHECK(o.steps >= 1, "Trainer::fit_steps needs {} of at least 1, found {}", Setting::steps,
             o.steps);
  KILN_CHECK(r.state.global_step < o.steps,
             "{} {} counts the steps in all, and this run has taken {} "
             "already{}: give more than {}",
             Setting::steps, o.steps, r.state.global_step, r.resumed ? " (with its checkpoint's)" : "",
             r.state.global_step);
  check_loader_has_batches(train);
  r.check_first_step(train);
  if (o.loader_tuning && !r.loader_tuning) {
    train.set_epoch(r.state.epoch);  // the trials read the epoch that training starts with
    tune_loader(train, *o.loader_tuning);
  }
  const std::int64_t interval = o.eval_interval > 0 ? o.eval_interval : o.steps;
  const std::int64_t periods = (o.steps + interval - 1) / interval;
  r.stop_requested = false;
  r.interrupted = false;
  r.fit_test = test;
  FitResult result;
  for (const auto& observer : r.observers) observer->on_fit_begin(*this, periods);
  while (r.state.global_step < o.steps) {
    const std::int64_t period = r.state.global_step / interval + 1;
    bool& interrupted = r.interrupted;
    EpochReport report = r.train_period(*this, train, period, std::min(o.steps, period * interval), interrupted);
    report.step = r.state.global_step;
    report.steps = o.steps;
    report.perplexity = r.loss.reports_perplexity();
    report.test_split = test != nullptr;
    if (test != nullptr && !interrupted) {
      test->set_epoch(0);  // the same batches at every evaluation, when their order is fixed
      const auto values = evaluate(*test, o.eval_iters);
      report.test_loss = values.mean_loss;
      report.test_accuracy = values.accuracy;
    }
    for (const auto& observer : r.observers) observer->on_epoch_end(*this, report);
    result.epochs.push_back(report);
    if (interrupted) {
      result.interrupted = true;
      break;
    }
    if (r.stop_requested) {
      result.stopped_early = r.state.global_step < o.steps;
      break;
    }
  }
  if (!result.epochs.empty()) result.diagnosis = diagnose(result.epochs.back());
  for (const auto& observer : r.observers) observer->on_fit_end(*this, result);
  return result;
}

void Trainer::save() {
  Impl& r = *impl_;
  KILN_CHECK(!r.o.checkpoint_dir.empty(), "Trainer::save needs a checkpoint folder ({})",
             SettingUsage{Setting::checkpoint_dir});
  if (r.checkpointer) r.checkpointer->save(*this);
}

bool Trainer::resume() {
  Impl& r = *impl_;
  KILN_CHECK(!r.o.checkpoint_dir.empty(), "resuming needs a checkpoint folder ({})",
             SettingUsage{Setting::checkpoint_dir});
  const std::optional<SavedCheckpoint> saved = read_checkpoint(r.o.checkpoint_dir);
  if (!saved) return false;
  check_resumable(r.o, r.model, saved->state);
  restore_checkpoint(*saved, r.model, r.optimizer);
  r.state.epoch = saved->state.epoch;
  r.state.batches_done = saved->state.batches_done;
  r.state.global_step = saved->state.global_step;
  r.state.generator_offset = saved->state.generator_offset;
  r.state.batch_size = saved->state.batch_size;
  r.resumed = true;
  if (std::ostream* out = r.out())
    *out << fmt::format("resuming from '{}': epoch {}, step {}\n", saved->folder, r.state.epoch + 1,
                        r.state.global_step);
  return true;
}

void Trainer::add_observer(std::shared_ptr<TrainingObserver> observer) {
  KILN_CHECK(observer != nullptr, "Trainer::add_observer with a null observer");
  impl_->observers.push_back(std::move(observer));
}
void Trainer::on_epoch_end(EpochHook hook) { add_observer(std::make_shared<EpochHookObserver>(std::move(hook))); }
void Trainer::request_stop() { impl_->stop_requested = true; }

std::int64_t Trainer::steps_per_epoch(const DataLoader& train) const { return impl_->steps_per_epoch(train); }
Diagnosis Trainer::diagnose(const EpochReport& report) const { return kiln::diagnose(report, machine_cores()); }
const TrainingState& Trainer::state() const { return impl_->state; }
const DataLoader* Trainer::test_loader() const { return impl_->fit_test; }
const RunFingerprint& Trainer::fingerprint() const { return impl_->fingerprint; }
const TrainerOptions& Trainer::options() const { return impl_->o; }
const std::optional<LoaderTuning>& Trainer::loader_tuning() const { return impl_->loader_tuning; }
Device Trainer::device() const { return impl_->device; }
int Trainer::rank() const { return impl_->comm.rank(); }
int Trainer::world_size() const { return impl_->comm.world_size(); }

}  // namespace kiln
