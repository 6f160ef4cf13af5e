// StepScalars: the per-step scalars of the updates to come, kept on the optimizer's device for an
// update recorded once into a CUDA graph and replayed at every step
// (RecordableOptimizer::record_step).
#pragma once

#include <cstdint>

#include "kiln/core/ops.h"
#include "kiln/optim/lr_schedule.h"
#include "kiln/optim/recordable_optimizer.h"

namespace kiln {

// Row k holds what the k-th replay after prepare() needs: its learning rate from the schedule
// and, for Adam, the bias corrections of its step count. The cursor that picks the row lives on
// the device and advances there; the host only counts the replays, to know when rows run out.
class StepScalars {
 public:
  // Rows for the `count` updates at global steps first_step, first_step + 1, ... (learning rates
  // schedule.lr_at(first_step + k)) that follow the optimizer's steps() so far, on the
  // parameters' device; the cursor restarts at row 0. Copies and waits, so it must not run
  // while a CUDA graph is being recorded.
  void prepare(const RecordableOptimizer& optimizer, const LrSchedule& schedule,
               std::int64_t first_step, std::int64_t count);
  // What RecordableOptimizer::record_step reads.
  StepScalarRows rows() { return {&rows_, &cursor_}; }
  // Rows no replay has used yet; replayed() counts one replay.
  std::int64_t remaining() const { return remaining_; }
  void replayed() { --remaining_; }

 private:
  Tensor rows_, cursor_;
  std::int64_t remaining_ = 0;
};

}  // namespace kiln
