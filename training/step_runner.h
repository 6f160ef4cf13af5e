// StepRunner: one training step of a Trainer, in its three forms. Eager: forward + loss, backward
// and the optimizer update, each a profiled stage. Graphed (TrainerOptions::cuda_graph): the whole
// step recorded once as a CUDA graph and replayed (graphed_step.h). Replicated (a communicator of
// several ranks): weights broadcast from rank 0 once, and gradients averaged in buckets started
// from inside backward.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>

#include "kiln/core/shape.h"
#include "kiln/data/batch.h"
#include "kiln/distributed/communicator.h"
#include "kiln/distributed/gradient_reducer.h"
#include "kiln/layers/loss.h"
#include "kiln/layers/metrics.h"
#include "kiln/layers/module.h"
#include "kiln/monitor/step_profiler.h"
#include "kiln/optim/clip.h"
#include "kiln/optim/lr_schedule.h"
#include "kiln/optim/optimizer.h"
#include "kiln/optim/recordable_optimizer.h"
#include "kiln/training/graphed_step.h"

namespace kiln {

struct StepRunnerOptions {
  Shape input_shape;  // each batch's x (B, ...) viewed as (B, input_shape); empty: as given
  bool cuda_graph = false;
  double bucket_mb = 25;        // gradient all-reduce bucket size
  std::ostream* out = nullptr;  // where the all-reduce line goes (rank 0's), or null
  float clip_grad_norm = 0.0f;  // TrainerOptions::clip_grad_norm
};

// The loop around it, the reports and the observers are the Trainer's (training/trainer.cpp).
class StepRunner {
 public:
  // `model`, `optimizer`, `loss` and `comm` must outlive the runner.
  StepRunner(Module& model, Optimizer& optimizer, Loss& loss, Communicator& comm, Device device,
             StepRunnerOptions options);

  // The batch's x as the model takes it: a view.
  Tensor as_input(const Tensor& x) const;
  // Identical replicas, whatever each loaded, and gradients averaged from then on (once).
  void prepare_replicas();
  // One step on `batch` at `global_step`, with `steps_left` steps of the schedule still to come
  // (the rows a recorded update prepares): returns the batch's mean loss, a device scalar.
  Tensor step(const Batch& batch, const LrSchedule& schedule, std::int64_t global_step,
              std::int64_t steps_left);
  // Forgets the recorded graph: after evaluation, which may move the modules' buffers.
  void reset_graph();
  // The optimizer as the graphed step records it; throws when its update cannot be recorded.
  RecordableOptimizer& recordable_optimizer() const;

  StepProfiler& profiler() { return profiler_; }
  RunningMetrics& metrics() { return metrics_; }

 private:
  Tensor forward_backward(const Tensor& batch_x, const Tensor& y, bool eager);
  Tensor eager_step(const Batch& batch);
  // The gradients scaled to options_.clip_grad_norm at most (after their all-reduce); no-op at 0.
  void clip_gradients();
  Tensor graphed_step(const Batch& batch, const LrSchedule& schedule, std::int64_t global_step,
                      std::int64_t steps_left);

  Module& model_;
  Optimizer& optimizer_;
  Loss& loss_;
  Communicator& comm_;
  Device device_;
  StepRunnerOptions options_;
  StepProfiler profiler_;
  RunningMetrics metrics_;
  std::unique_ptr<GradientReducer> reducer_;  // data-parallel runs only
  bool replicas_ready_ = false;               // weights broadcast, reducer wired
  std::unique_ptr<GraphedStep> graphed_;      // cuda_graph only
  std::optional<GradNormClipper> clipper_;    // clip_gradients', made at its first use
};

}  // namespace kiln
