// What a Trainer refuses before it trains, as the train app does for its flags: an optimizer
// that updates parameters the model does not hold (it would train nothing), a training loader
// without a batch (an epoch of loss 0), and a model whose optimizer state and activations will
// not fit in the memory left (estimated before the first step, models/memory_estimate.h); and,
// on resume, a checkpoint made for another run.
#pragma once

#include "kiln/checkpoint/training_state.h"
#include "kiln/core/device.h"
#include "kiln/data/data_loader.h"
#include "kiln/layers/module.h"
#include "kiln/optim/optimizer.h"

namespace kiln {

struct TrainerOptions;

// Throws kiln::Error naming the first parameter of `optimizer` that is not one of `model`'s.
void check_optimizer_updates_model(const Module& model, const Optimizer& optimizer);

// Throws kiln::Error naming the data set when `train` gives no batch in an epoch.
void check_loader_has_batches(const DataLoader& train);

// The state tensors per parameter `optimizer` will allocate at its first step: 2 for Adam and
// AdamW, 1 for SGD with momentum, 0 for SGD without or once the state exists.
int optimizer_state_to_allocate(const Optimizer& optimizer);

// Throws kiln::Error naming the model and the data set when the model's output for one sample
// (input_shape: as the model takes it; empty: the loader's sample shape) cannot score the data's
// targets: class labels need one output per class (at least num_classes()), a label per position
// (token windows) needs (positions, classes), float targets their own shape's count.
void check_model_fits_data(Module& model, const DataLoader& train, const Shape& input_shape);

// Throws kiln::Error with the figures when the optimizer's state and one batch's activations
// (input_shape: a sample as the model takes it; empty: the loader's sample shape) pass the
// memory available on `device`. The parameters and gradients are allocated already.
void check_training_fits_memory(Module& model, const Optimizer& optimizer, const DataLoader& train,
                                const Shape& input_shape, Device device);

// Throws kiln::Error listing every field of the run recorded in `saved` that differs from this
// run's, where both recorded it. Checkpoints of kiln-checkpoint-2 recorded the run as settings
// keyed by the caller's names: those are compared with TrainerOptions::legacy_settings, key by
// key. Checkpoints written before kiln recorded settings are compared by their run description
// alone: model, data, batch and optimizer. A model without a spec is compared by its structure.
void check_resumable(const TrainerOptions& options, const Module& model,
                     const TrainingState& saved);

}  // namespace kiln
