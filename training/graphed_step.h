// GraphedStep: the CUDA graph of TrainerOptions::cuda_graph — the whole step of a batch (forward,
// loss, metrics, zero_grad, backward and the optimizer update) recorded once and replayed with one
// launch.
#pragma once

#include "kiln/core/cuda_graph.h"
#include "kiln/data/batch.h"
#include "kiln/optim/step_scalars.h"

namespace kiln {

// The graph reads the batch from x and y (each batch is copied there first) and writes the
// modules' own buffers, so anything that may reallocate them (a batch of another shape,
// evaluation) resets it; the next batch then runs eagerly at the new shapes and the one after is
// recorded. The recorded update reads its learning rate (and Adam's bias corrections) from
// `scalars`, rows prepared at the recording for the steps to come.
struct GraphedStep {
  CudaGraph graph;
  StepScalars scalars;
  Tensor x, y;        // the inputs the graph reads
  Tensor loss;        // the buffer it writes the loss to
  bool warm = false;  // a batch of warm_shape ran eagerly since the last reset
  Shape warm_shape;

  void reset() {
    graph.reset();
    warm = false;
  }

  // Whether a batch of this shape goes through the graph (recorded now or replayed); false: run
  // it eagerly, which warms the graph for the next batch of the same shape.
  bool ready_for(const Shape& shape) {
    if (graph.captured() && scalars.remaining() == 0) reset();  // rows used up: record anew
    if (warm && shape == warm_shape) return true;
    reset();
    warm = true;
    warm_shape = shape;
    return false;
  }

  // The input buffers the recording reads, shaped like `batch` on `device`.
  void prepare_inputs(const Batch& batch, Device device) {
    if (!x.defined() || x.shape() != batch.x.shape())
      x = Tensor::empty(batch.x.shape(), batch.x.dtype(), device);
    if (!y.defined() || y.shape() != batch.y.shape() || y.dtype() != batch.y.dtype())
      y = Tensor::empty(batch.y.shape(), batch.y.dtype(), device);
  }
};

}  // namespace kiln
