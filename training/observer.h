// TrainingObserver: what watches a Trainer's run from outside the loop, attached with
// Trainer::add_observer — the JSON log, the NaN guard, early stopping, or one of your own. Each
// call comes on the rank that trains (every rank of a data-parallel job); observers run in the
// order they were added, after the trainer's own checkpoint and console lines of the epoch.
#pragma once

#include <cstdint>

#include "kiln/core/tensor.h"
#include "kiln/training/epoch_report.h"

namespace kiln {

class Trainer;

// One finished training step of an epoch.
struct StepEnd {
  std::int64_t epoch = 0;        // 1-based
  std::int64_t step = 0;         // steps of this epoch done, this one included (1-based)
  std::int64_t epoch_steps = 0;  // the epoch's batches
  Tensor loss;                   // the step's mean loss, a scalar on the device: item() syncs
};

class TrainingObserver {
 public:
  virtual ~TrainingObserver() = default;
  virtual void on_step_end(Trainer& trainer, const StepEnd& step) { (void)trainer, (void)step; }
  // After the epoch's evaluation and checkpoint; request_stop() here ends fit after this epoch.
  virtual void on_epoch_end(Trainer& trainer, const EpochReport& report) {
    (void)trainer, (void)report;
  }
};

}  // namespace kiln
