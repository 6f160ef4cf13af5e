// TrainingObserver: what watches a Trainer's run from outside the loop, attached with
// Trainer::add_observer — the console reporter, the checkpointer, the JSON log, the NaN guard,
// early stopping, or one of your own. Each call comes on the rank that trains (every rank of a
// data-parallel job); observers run in the order they were added, after the trainer's own (the
// NaN guard, the checkpointer, the console reporter and the JSON log, as the options ask).
#pragma once

#include <cstdint>

#include "kiln/core/tensor.h"
#include "kiln/layers/metrics.h"
#include "kiln/report/epoch_report.h"

namespace kiln {

class Trainer;
struct FitResult;

// One finished training step of an epoch.
struct StepEnd {
  std::int64_t epoch = 0;        // 1-based
  std::int64_t step = 0;         // steps of this epoch done, this one included (1-based)
  std::int64_t epoch_steps = 0;  // the epoch's batches
  Tensor loss;                   // the step's mean loss, a scalar on the device: item() syncs
  std::int64_t batch_size = 0;   // the epoch's global batch (the loader's, over all ranks)
  // The epoch's loss and accuracy so far; read() waits for the device.
  const RunningMetrics* running = nullptr;
};

class TrainingObserver {
 public:
  virtual ~TrainingObserver() = default;
  // fit() begins, to train until `epochs` epochs are done in all.
  virtual void on_fit_begin(Trainer& trainer, std::int64_t epochs) { (void)trainer, (void)epochs; }
  // An epoch's training steps begin (1-based; a resumed epoch begins again where it stood).
  virtual void on_epoch_begin(Trainer& trainer, std::int64_t epoch) { (void)trainer, (void)epoch; }
  // A training step of an epoch is about to run: `global_step` counts the steps before it
  // (TrainingState::global_step). Tests of failure handling make a rank fail or hang here.
  virtual void on_step_begin(Trainer& trainer, std::int64_t global_step) {
    (void)trainer, (void)global_step;
  }
  virtual void on_step_end(Trainer& trainer, const StepEnd& step) { (void)trainer, (void)step; }
  // After the epoch's evaluation; request_stop() here ends fit after this epoch.
  virtual void on_epoch_end(Trainer& trainer, const EpochReport& report) {
    (void)trainer, (void)report;
  }
  // fit() ends, its result (and the diagnosis of its last epoch) made.
  virtual void on_fit_end(Trainer& trainer, const FitResult& result) {
    (void)trainer, (void)result;
  }
};

}  // namespace kiln
