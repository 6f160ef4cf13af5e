// kiln::Trainer: the training loop as a library class, for any Module, Optimizer, Loss and
// DataLoader. Each step is profiled by stage, each epoch ends in an EpochReport, and the diagnosis
// says what limits training and what to change. The train app is a thin shell over it (apps/train/
// builds the objects from its flags).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kiln/checkpoint/run_fingerprint.h"
#include "kiln/checkpoint/training_state.h"
#include "kiln/core/precision.h"
#include "kiln/data/batch.h"
#include "kiln/data/data_loader.h"
#include "kiln/data/loader_tuning.h"
#include "kiln/data/vocabulary.h"
#include "kiln/layers/loss.h"
#include "kiln/layers/metrics.h"
#include "kiln/layers/module.h"
#include "kiln/optim/lr_schedule.h"
#include "kiln/optim/optimizer.h"
#include "kiln/report/epoch_report.h"
#include "kiln/training/diagnosis.h"
#include "kiln/training/observer.h"

namespace kiln {

class Communicator;

struct TrainerOptions {
  // Where the model trains: its parameters (and so the optimizer's) must already live there
  // (model.to(device) before building the optimizer). With a communicator, the communicator's
  // device wins for GPU replicas.
  Device device = Device::cpu();
  // Matrix products and convolutions (core/precision.h), set for the process when given; unset:
  // the process's setting stays.
  std::optional<MatmulPrecision> precision;
  // Each batch's x (B, ...) is viewed as (B, input_shape) before forward, for free (a flat MLP
  // on image data); empty: as the loader gives it.
  Shape input_shape;
  // GPU, one process: forward, loss, backward and update of each full batch replayed as one CUDA
  // graph (recorded again after a batch of another shape and after evaluation).
  bool cuda_graph = false;
  // Checkpoints (empty: save() and resume() are errors). The trainer locks the folder for its
  // lifetime: another run, or a second Trainer, on the same folder is refused.
  std::string checkpoint_dir;
  int keep_checkpoints = 2;  // the newest checkpoints kept there
  // What the run is (checkpoint/run_fingerprint.h): recorded in every checkpoint with the model's
  // structure; resume() refuses a checkpoint whose record differs in a field both recorded (a
  // model without a spec: of another structure), naming each. The ranks of a data-parallel job
  // must agree on it and on the settings that shape the collectives or change the numbers
  // (precision, bucket_mb, cuda_graph, max_steps): the constructor compares them all and names
  // each difference with each rank's value (distributed/rank_agreement.h's RanksDisagree).
  RunDescription run;
  // Only for checkpoints of kiln-checkpoint-2, which recorded the run as settings keyed by the
  // caller's names (train used its flags): this run's settings under the same names, compared key
  // by key on resume. Empty: such checkpoints are compared by `run` alone (what both recorded).
  std::map<std::string, std::string> legacy_settings;
  std::string log_json;         // append one JSON line per epoch (empty: none)
  std::ostream* out = nullptr;  // epoch lines, stage tables, diagnosis (null: silent)
  bool progress = true;         // a progress line on `out` twice a second when `out` is a terminal
  // How printed advice (the diagnosis) names settings; null: by this API's fields.
  const SettingWords* setting_words = nullptr;
  // Data parallelism: this process's rank. Gradients are averaged over the ranks, metrics summed,
  // only rank 0 prints, logs and writes checkpoints. Null: this process alone.
  Communicator* comm = nullptr;
  double bucket_mb = 25;  // gradient all-reduce bucket size
  // > 0: before each update the gradients are scaled to this global L2 norm at most, as
  // torch.nn.utils.clip_grad_norm_ (nanoGPT's grad_clip 1.0), after their all-reduce; 0: none.
  float clip_grad_norm = 0.0f;
  std::int64_t max_steps = 0;  // steps per epoch at most (0: whole epochs)
  // Set: the first fit() or fit_steps() begins by trying the training loader's settings (workers;
  // pinned slots on a GPU when asked) and keeps the fastest (data/loader_tuning.h, tune_loader
  // below); the choice is printed, logged and in every EpochReport. Unset: the loader as built.
  std::optional<LoaderTuningOptions> loader_tuning;
  // A run counted in steps (fit_steps, as nanoGPT counts max_iters): the training steps in all,
  // crossing the loader's epochs as needed; every eval_interval steps (and after the last) an
  // evaluation on the first eval_iters batches of the test loader (0: all of them; the same
  // batches each time when its order is fixed) ends a report like an epoch's: stage table, JSON
  // line, checkpoint. 0: an epoch-counted run (fit).
  std::int64_t steps = 0;
  std::int64_t eval_interval = 0;  // 0: once, after the last step
  std::int64_t eval_iters = 0;
  // How the data's token ids map to text (data/vocabulary.h), recorded in every checkpoint so
  // that kiln-generate decodes with it; unset: none recorded.
  std::optional<Vocabulary> vocabulary;
  // Polled after every step: when set, the step finishes, a checkpoint is saved (with a folder)
  // and fit() returns with `interrupted`. A Ctrl-C handler sets it.
  const std::atomic<bool>* stop = nullptr;
};

struct FitResult {
  std::vector<EpochReport> epochs;  // this call's epochs
  Diagnosis diagnosis;              // of the last epoch
  bool interrupted = false;         // stopped inside an epoch by TrainerOptions::stop
  bool stopped_early = false;       // stopped after an epoch by request_stop() (a hook, say)
};

// Stages: data wait, copy, forward, backward, optimizer, all-reduce; an EpochReport holds stage
// times, utilisation, memory, losses and accuracy. The trainer checks the loss for NaN, writes
// checkpoints and resumes from them, can replay each step as one CUDA graph, and trains as one
// rank of a data-parallel job when given a Communicator. Its messages and advice name this API
// (TrainerOptions::precision); an app words them as its flags.
//
//   kiln::Trainer trainer(model, optimizer, loss,
//                         {.device = kiln::Device::cpu(), .out = &std::cout});
//   kiln::FitResult result = trainer.fit(train_loader, 10, &test_loader);
class Trainer {
 public:
  // `model`, `optimizer` and `loss` must outlive the trainer. Throws kiln::Error for options that
  // cannot work (a GPU that cannot be used, tf32 on the CPU, parameters on another device, a
  // model a CUDA graph cannot replay, an unwritable log or checkpoint folder).
  Trainer(Module& model, Optimizer& optimizer, Loss& loss, TrainerOptions options = {});
  ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  // The learning rate at each global step (default: the optimizer's own, constant).
  void set_schedule(std::unique_ptr<LrSchedule> schedule);

  // Trains until `epochs` epochs are done in all (a resumed trainer continues where its
  // checkpoint stood; throws when as many are done already: a second fit needs a larger count),
  // evaluating on `test` (may be null) after each, saving a checkpoint after each when there is a
  // folder, printing and logging as the options say.
  FitResult fit(DataLoader& train, std::int64_t epochs, DataLoader* test = nullptr);
  // Trains until TrainerOptions::steps steps are done in all (a resumed trainer continues at its
  // checkpoint's step; throws when as many are done already), with an evaluation on `test` (may be
  // null) and a report every TrainerOptions::eval_interval steps; FitResult::epochs holds one
  // report per evaluation.
  FitResult fit_steps(DataLoader& train, DataLoader* test = nullptr);
  // One epoch (the next one, or the rest of an interrupted one) and its evaluation; hooks run.
  EpochReport fit_epoch(DataLoader& train, DataLoader* test = nullptr);
  // Mean loss and accuracy of the current weights over `data`, in evaluation mode, summed over
  // the ranks of a data-parallel job (each evaluating its own shard).
  RunningMetrics::Values evaluate(DataLoader& data);
  // The same over the first `max_batches` batches only (0: all).
  RunningMetrics::Values evaluate(DataLoader& data, std::int64_t max_batches);
  // Tries settings of `train` (data/loader_tuning.h) with the model's forward and loss in
  // evaluation mode as the consumer, so no weight, optimizer state or position changes, and
  // leaves `train` at the fastest; later reports carry the result. fit() calls it once when
  // TrainerOptions::loader_tuning is set.
  LoaderTuning tune_loader(DataLoader& train, const LoaderTuningOptions& options);
  // One training step on a batch (forward, loss, backward, all-reduce, update) for a loop of
  // one's own: returns the batch's mean loss, a scalar on the device (item() reads it).
  Tensor step(const Batch& batch);

  // Writes a checkpoint of weights, optimizer state and training position to the folder.
  void save();
  // Loads the newest checkpoint of the folder, if there is one: weights, optimizer state and
  // position (the next fit continues there). Returns whether there was one; throws for a broken
  // one or one made with other settings.
  bool resume();

  // Watches every step and epoch from now on (training/observer.h), after the observers the
  // options make (the NaN guard; on rank 0 the Checkpointer with TrainerOptions::checkpoint_dir,
  // the ConsoleReporter with TrainerOptions::out, the JsonLog with TrainerOptions::log_json) and
  // those added before: early stopping (training/early_stopping.h) or one of your own.
  void add_observer(std::shared_ptr<TrainingObserver> observer);
  // Called after each epoch (its evaluation and checkpoint done) with the epoch's report: an
  // observer of on_epoch_end alone.
  using EpochHook = std::function<void(Trainer&, const EpochReport&)>;
  void on_epoch_end(EpochHook hook);
  // Ends fit() after the current epoch (from a hook: early stopping).
  void request_stop();

  // The steps an epoch of `train` takes here: all its batches, or max_steps when fewer (what a
  // schedule over the whole run must span).
  std::int64_t steps_per_epoch(const DataLoader& train) const;
  Diagnosis diagnose(const EpochReport& report) const;
  // What this run is (checkpoint/run_fingerprint.h): TrainerOptions::run, the model's structure and
  // the settings that change the numbers, as the ranks compare them (the run report shows it).
  const RunFingerprint& fingerprint() const;
  const TrainingState& state() const;
  // The test loader of the fit() or fit_steps() in progress (null: none, or outside one), for
  // observers that judge by its evaluations (EarlyStopping).
  const DataLoader* test_loader() const;
  const TrainerOptions& options() const;
  // What tune_loader chose (TrainerOptions::loader_tuning), once it ran.
  const std::optional<LoaderTuning>& loader_tuning() const;
  Device device() const;
  int rank() const;
  int world_size() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kiln
