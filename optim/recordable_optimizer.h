// RecordableOptimizer: an optimizer whose update can be recorded once into a CUDA graph and
// replayed at every step (TrainerOptions::cuda_graph), as Sgd's and Adam's fused updates can. An
// optimizer derived from Optimizer alone trains eagerly, and TrainerOptions::cuda_graph refuses it.
#pragma once

#include <cstdint>

#include "kiln/optim/optimizer.h"

namespace kiln {

class RecordableOptimizer : public Optimizer {
 public:
  using Optimizer::Optimizer;

  // A replayed update reads its learning rate (and Adam's bias corrections) from the row at a
  // cursor on the device, which then advances there (core/ops.h, StepScalarRows;
  // optim/step_scalars.h prepares the rows), never from the host.
  // The update in the form a CUDA graph records, reading its scalars from `per_step`. Recording
  // runs nothing, so this leaves the host state alone: call replayed() after each replay. Needs
  // the state of an earlier step() or load_state().
  void record_step(const StepScalarRows& per_step);
  // Counts one replay of a recorded update (at the learning rate set_lr() gave the host).
  void replayed() { ++steps_; }
  // Per-step rows for recorded updates: floats per row, and the row of the update `ahead`
  // updates after the next one, at learning rate lr.
  virtual std::int32_t step_scalar_width() const = 0;
  virtual void write_step_scalars(float lr, std::int64_t ahead, float* row) const = 0;

 protected:
  // One update; its per-step scalars come from `per_step` when it is not null, else from lr_
  // and steps_. Leaves steps_ to the caller.
  virtual void update_from(const StepScalarRows* per_step) = 0;
  void update() final { update_from(nullptr); }
};

// `optimizer` as a RecordableOptimizer, or null when its update cannot be recorded.
RecordableOptimizer* as_recordable(Optimizer& optimizer);

}  // namespace kiln
