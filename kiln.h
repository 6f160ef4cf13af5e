// The public API of kiln in one include: #include <kiln/kiln.h>. Tensors and ops, layers and
// losses, optimizers and schedules, data sets and the loader, model presets, the Trainer with its
// reports, diagnosis and checkpoints, and the communicators of data-parallel training. Headers
// left out are the library's own plumbing (backend seams, file-format internals); they are
// installed, and can be included by name, but are not promised to stay.
#pragma once

// Tensors, devices, memory, streams, the op list.
#include "kiln/core/cpu_compute.h"
#include "kiln/core/cuda_graph.h"
#include "kiln/core/device.h"
#include "kiln/core/dtype.h"
#include "kiln/core/error.h"
#include "kiln/core/log.h"
#include "kiln/core/memory.h"
#include "kiln/core/ops.h"
#include "kiln/core/parallel.h"
#include "kiln/core/precision.h"
#include "kiln/core/random.h"
#include "kiln/core/shape.h"
#include "kiln/core/step_profiler.h"
#include "kiln/core/stream.h"
#include "kiln/core/tensor.h"
#include "kiln/core/timer.h"

// Layers and losses.
#include "kiln/layers/activations.h"
#include "kiln/layers/batch_norm.h"
#include "kiln/layers/batch_norm2d.h"
#include "kiln/layers/conv2d.h"
#include "kiln/layers/cross_entropy_loss.h"
#include "kiln/layers/dropout.h"
#include "kiln/layers/flatten.h"
#include "kiln/layers/gradient_check.h"
#include "kiln/layers/layer_norm.h"
#include "kiln/layers/linear.h"
#include "kiln/layers/loss.h"
#include "kiln/layers/metrics.h"
#include "kiln/layers/module.h"
#include "kiln/layers/mse_loss.h"
#include "kiln/layers/pool2d.h"

// Optimizers and learning-rate schedules.
#include "kiln/optim/adam.h"
#include "kiln/optim/clip.h"
#include "kiln/optim/lr_schedule.h"
#include "kiln/optim/make_optimizer.h"
#include "kiln/optim/optimizer.h"
#include "kiln/optim/sgd.h"

// Data sets and the loader.
#include "kiln/data/article_dataset.h"
#include "kiln/data/batch.h"
#include "kiln/data/csv_dataset.h"
#include "kiln/data/data_loader.h"
#include "kiln/data/data_spec.h"
#include "kiln/data/dataset.h"
#include "kiln/data/idx_dataset.h"
#include "kiln/data/image_folder_dataset.h"
#include "kiln/data/npy_dataset.h"
#include "kiln/data/subset_dataset.h"
#include "kiln/data/transformed_dataset.h"
#include "kiln/data/transforms.h"

// Models: the composites (Sequential, Residual) and the presets by name ("article", "lenet5",
// "mlp:...", "cnn").
#include "kiln/models/model_spec.h"
#include "kiln/models/residual.h"
#include "kiln/models/sequential.h"

// Training: the Trainer, its reports and diagnosis, checkpoints, and train() from flags.
#include "kiln/training/checkpoint.h"
#include "kiln/training/diagnosis.h"
#include "kiln/training/epoch_report.h"
#include "kiln/training/report_format.h"
#include "kiln/training/safetensors.h"
#include "kiln/training/train_options.h"
#include "kiln/training/trainer.h"

// Past one device: communicators and data-parallel helpers.
#include "kiln/dist/communicator.h"
#include "kiln/dist/data_parallel.h"
#include "kiln/dist/mpi_communicator.h"
#include "kiln/dist/nccl_communicator.h"
