// kiln::Trainer's public API over its Impl (training/trainer_impl.h): construction and the
// checks of its options, fit and fit_steps around the loop (training/trainer_loop.cpp), each
// epoch's evaluation, then the observers' on_epoch_end (the checkpointer, the console reporter,
// the JSON log, yours, the hooks); evaluation, loader tuning, save and resume.
#include "kiln/training/trainer.h"

#include <cmath>
#include <ostream>

#include "kiln/checkpoint/checkpoint.h"
#include "kiln/distributed/communicator.h"
#include "kiln/distributed/data_parallel.h"
#include "kiln/distributed/rank_agreement.h"
#include "kiln/training/checkpointer.h"
#include "kiln/training/console_reporter.h"
#include "kiln/training/fit_checks.h"
#include "kiln/training/json_log.h"
#include "kiln/training/nan_guard.h"
#include "kiln/training/trainer_impl.h"

namespace kiln {

namespace {

// on_epoch_end(hook) as an observer.
class EpochHookObserver : public TrainingObserver {
 public:
  explicit EpochHookObserver(Trainer::EpochHook hook) : hook_(std::move(hook)) {}
  void on_epoch_end(Trainer& trainer, const EpochReport& report) override {
    hook_(trainer, report);
  }

 private:
  Trainer::EpochHook hook_;
};

// What the ranks compare: the run's whole fingerprint, each field by name.
std::vector<NamedSetting> rank_settings(const RunFingerprint& fingerprint) {
  std::vector<NamedSetting> settings;
  for (const RunField& field : fingerprint_fields(fingerprint))
    settings.emplace_back(fmt::format("{}", field.setting), field.value.value_or(""));
  return settings;
}

}  // namespace

Trainer::Trainer(Module& model, Optimizer& optimizer, Loss& loss, TrainerOptions options) {
  const Device wanted = options.comm != nullptr && options.comm->device().is_cuda()
                            ? options.comm->device()
                            : options.device;
  if (wanted.is_cuda())
    KILN_CHECK(cuda_available(),
               "training on {} asks for a GPU, but none can be used: {}; train on the CPU",
               wanted.str(), cuda_unavailable_reason());
  std::unique_ptr<Communicator> single =
      options.comm ? nullptr : make_single_process_communicator(wanted);
  impl_ = std::make_unique<Impl>(model, optimizer, loss, std::move(options), std::move(single));
  Impl& r = *impl_;
  const TrainerOptions& o = r.o;
  KILN_CHECK(r.comm.device() == r.device || r.comm.is_single_process(),
             "the trainer's device {} does not match the communicator ({}), which works on {}",
             r.device.str(), r.comm.describe(), r.comm.device().str());
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
             "{} ({}), eval_interval ({}) and eval_iters ({}) must be >= 0", Setting::steps,
             o.steps, o.eval_interval, o.eval_iters);
  KILN_CHECK(o.steps == 0 || o.max_steps == 0,
             "{} {} counts the run in steps, and {} {} cuts epochs short: give one of the two",
             Setting::steps, o.steps, Setting::max_steps, o.max_steps);
  for (const Parameter* p : optimizer.parameters())
    KILN_CHECK(p->value.device() == r.device,
               "parameter '{}' is on {} but the trainer trains on {}: call model.to(device) before "
               "building "
               "the optimizer",
               p->name, p->value.device().str(), r.device.str());
  check_optimizer_updates_model(model, optimizer);
  set_matmul_precision(precision);
  r.o.run.clip_grad_norm = o.clip_grad_norm;  // the record's, so a resume with another is refused
  r.fingerprint = {o.run,
                   describe_structure(model),
                   matmul_precision_name(precision),
                   o.bucket_mb,
                   o.cuda_graph,
                   o.max_steps};
  check_ranks_agree(
      rank_settings(r.fingerprint), r.comm,
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
      r.checkpointer =
          std::make_shared<Checkpointer>(o.checkpoint_dir, o.keep_checkpoints, model, optimizer);
      r.observers.push_back(r.checkpointer);
    }
    if (o.out != nullptr)
      r.observers.push_back(std::make_shared<ConsoleReporter>(*o.out, o.progress, r.words()));
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
  KILN_CHECK(max_batches >= 0, "Trainer::evaluate: max_batches must be >= 0 (0: all), found {}",
             max_batches);
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
    tuning = kiln::tune_loader(train, options, consumer, Impl::machine_cores());
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
  KILN_CHECK(r.o.steps == 0, "{} {} counts the run in steps: train it with fit_steps, not fit",
             Setting::steps, r.o.steps);
  // fit's epochs count the run's epochs in all (a resumed run goes on to them), so a second
  // fit with the same count has nothing left to train: said, not returned empty.
  KILN_CHECK(r.state.epoch < epochs,
             "{} {} counts the epochs in all, and this run has trained {} already{}: give "
             "more than {} ({} {} trains {} more)",
             Setting::epochs, epochs, r.state.epoch, r.resumed ? " (with its checkpoint's)" : "",
             r.state.epoch, Setting::epochs, r.state.epoch + epochs, epochs);
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
  if (!result.epochs.empty())
    result.diagnosis = kiln::diagnose(result.epochs, Impl::machine_cores());
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
             Setting::steps, o.steps, r.state.global_step,
             r.resumed ? " (with its checkpoint's)" : "", r.state.global_step);
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
    EpochReport report =
        r.train_period(*this, train, period, std::min(o.steps, period * interval), interrupted);
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
void Trainer::on_epoch_end(EpochHook hook) {
  add_observer(std::make_shared<EpochHookObserver>(std::move(hook)));
}
void Trainer::request_stop() { impl_->stop_requested = true; }

std::int64_t Trainer::steps_per_epoch(const DataLoader& train) const {
  return impl_->steps_per_epoch(train);
}
Diagnosis Trainer::diagnose(const EpochReport& report) const {
  return kiln::diagnose(report, Impl::machine_cores());
}
const TrainingState& Trainer::state() const { return impl_->state; }
const DataLoader* Trainer::test_loader() const { return impl_->fit_test; }
const RunFingerprint& Trainer::fingerprint() const { return impl_->fingerprint; }
const TrainerOptions& Trainer::options() const { return impl_->o; }
const std::optional<LoaderTuning>& Trainer::loader_tuning() const { return impl_->loader_tuning; }
Device Trainer::device() const { return impl_->device; }
int Trainer::rank() const { return impl_->comm.rank(); }
int Trainer::world_size() const { return impl_->comm.world_size(); }

}  // namespace kiln
