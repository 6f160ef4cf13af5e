// The eager, graphed and replicated steps of training/step_runner.h.
#include "kiln/training/step_runner.h"

#include <ostream>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "kiln/core/error.h"
#include "kiln/core/ops.h"
#include "kiln/core/stream.h"
#include "kiln/distributed/data_parallel.h"
#include "kiln/layers/gradient_ready_hook.h"

namespace kiln {

StepRunner::StepRunner(Module& model, Optimizer& optimizer, Loss& loss, Communicator& comm,
                       Device device, StepRunnerOptions options)
    : model_(model), optimizer_(optimizer), loss_(loss), comm_(comm), device_(device),
      options_(std::move(options)), profiler_(device), metrics_(device) {
  if (options_.cuda_graph) graphed_ = std::make_unique<GraphedStep>();
}

RecordableOptimizer& StepRunner::recordable_optimizer() const {
  RecordableOptimizer* recordable = as_recordable(optimizer_);
  KILN_CHECK(recordable != nullptr,
             "{} records the optimizer's update, and {} is not a "
             "RecordableOptimizer (optim/recordable_optimizer.h) as Sgd and Adam are; derive it "
             "from one or drop {}",
             Setting::cuda_graph, optimizer_.describe(), Setting::cuda_graph);
  return *recordable;
}

Tensor StepRunner::as_input(const Tensor& x) const {
  if (options_.input_shape.rank() == 0) return x;
  std::vector<std::int64_t> dims{x.size(0)};
  dims.insert(dims.end(), options_.input_shape.dims().begin(), options_.input_shape.dims().end());
  return x.view(Shape(std::move(dims)));
}

void StepRunner::prepare_replicas() {
  if (replicas_ready_) return;
  replicas_ready_ = true;
  if (comm_.is_single_process()) return;
  broadcast_from_rank0(model_, comm_);
  const auto bucket_bytes = static_cast<std::size_t>(options_.bucket_mb * 1024.0 * 1024.0);
  reducer_ = std::make_unique<GradientReducer>(model_.parameters(), comm_, bucket_bytes);
  if (std::ostream* os = options_.out)
    *os << fmt::format(
        "  gradient all-reduce: {} bucket{} of up to {} MiB{}\n", reducer_->bucket_count(),
        reducer_->bucket_count() == 1 ? "" : "s", options_.bucket_mb,
        comm_.overlaps_compute() ? ", each started as soon as backward has produced it" : "");
  if (comm_.overlaps_compute())  // start each bucket as soon as backward has produced it
    // Each layer's parameter list made once, at its first report: a steady step allocates nothing.
    set_gradient_ready_hook(
        model_,
        [&r = *reducer_,
         lists = std::make_shared<std::unordered_map<const Module*, std::vector<Parameter*>>>()](
            Module& layer) {
          auto it = lists->find(&layer);
          if (it == lists->end()) it = lists->emplace(&layer, layer.parameters()).first;
          r.ready(it->second);
        });
}

// Forward, loss, the metrics' device ops, zero_grad and backward. While it is recorded into a
// CUDA graph (`eager` false) nothing is timed, since events cannot time inside a graph, and the
// metrics' host-side sample count is left to each replay. Returns the loss tensor.
Tensor StepRunner::forward_backward(const Tensor& batch_x, const Tensor& y, bool eager) {
  const Tensor x = as_input(batch_x);
  if (eager) profiler_.start(Stage::forward);
  const Tensor& output = model_.forward(x);
  Tensor mean_loss = loss_.forward(output, y);
  metrics_.accumulate(output, y, mean_loss);
  if (eager) {
    metrics_.count(batch_x.size(0));
    profiler_.stop(Stage::forward);
    profiler_.start(Stage::backward);
  }
  optimizer_.zero_grad();
  model_.backward(loss_.backward());
  if (eager) profiler_.stop(Stage::backward);
  return mean_loss;
}

void StepRunner::clip_gradients() {
  if (options_.clip_grad_norm <= 0.0f) return;
  if (!clipper_) clipper_.emplace(optimizer_.parameters(), options_.clip_grad_norm);
  clipper_->clip();
}

Tensor StepRunner::eager_step(const Batch& batch) {
  const Tensor mean_loss = forward_backward(batch.x, batch.y, true);
  if (reducer_) {  // on a GPU this times only the wait for what backward did not hide
    profiler_.start(Stage::allreduce);
    reducer_->finish();
    profiler_.stop(Stage::allreduce);
  }
  profiler_.start(Stage::optimizer);
  clip_gradients();
  optimizer_.step();
  profiler_.stop(Stage::optimizer);
  return mean_loss;
}

// Eagerly for a batch of a new shape (the graph is reset) and for the first one of a shape since
// a reset, recorded on the next, replayed after.
Tensor StepRunner::graphed_step(const Batch& batch, const LrSchedule& schedule,
                                std::int64_t global_step, std::int64_t steps_left) {
  GraphedStep& g = *graphed_;
  RecordableOptimizer& optimizer = recordable_optimizer();
  if (!g.ready_for(batch.x.shape())) return eager_step(batch);
  const Stream stream = Stream::current(device_);
  if (!g.graph.captured()) {
    g.prepare_inputs(batch, device_);
    g.scalars.prepare(optimizer, schedule, global_step, steps_left);
    try {
      g.graph.capture(device_, [&] {
        g.loss = forward_backward(g.x, g.y, false);
        clip_gradients();  // its clipper was made by the eager step before the recording
        optimizer.record_step(g.scalars.rows());
      });
    } catch (const Error& e) {
      KILN_THROW("{}: recording the training step failed: {}; train without {}",
                 Setting::cuda_graph, e.text(), Setting::cuda_graph);
    }
  }
  profiler_.start(Stage::graph);
  copy_async(batch.x, g.x, stream);
  copy_async(batch.y, g.y, stream);
  g.graph.replay();
  metrics_.count(batch.x.size(0));
  optimizer.replayed();
  g.scalars.replayed();
  profiler_.stop(Stage::graph);
  return g.loss;
}

Tensor StepRunner::step(const Batch& batch, const LrSchedule& schedule, std::int64_t global_step,
                        std::int64_t steps_left) {
  prepare_replicas();
  optimizer_.set_lr(schedule.lr_at(global_step));  // a replayed update reads its rows
  return graphed_ ? graphed_step(batch, schedule, global_step, steps_left) : eager_step(batch);
}

void StepRunner::reset_graph() {
  if (graphed_) graphed_->reset();
}

}  // namespace kiln
