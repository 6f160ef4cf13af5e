// The public API of kiln in one include: #include <kiln/kiln.h>. Tensors and ops, layers and
// losses, models, optimizers and schedules, data sets and the loader, the Trainer, checkpoints
// and epoch reports; the other rooms have headers of their own (listed below). Headers in none of
// them are the library's own plumbing (backend seams, file-format internals): installed, and can
// be included by name, but not promised to stay.
#pragma once

// The other rooms: <kiln/spec.h> (the spec strings: "mlp:784-512-10", "csv:PATH",
// "warmup:200+cosine"), <kiln/distributed.h> (communicators), <kiln/io.h> (safetensors, durable
// files), <kiln/monitor.h> (the step profiler, the GPU monitor, the CPU's competition) and
// <kiln/report.h> (the HTML run report and its charts).

// Tensors, devices, memory, streams, the op list.
#include "kiln/core/cpu_compute.h"
#include "kiln/core/cpu_description.h"
#include "kiln/core/cuda_graph.h"
#include "kiln/core/device.h"
#include "kiln/core/dtype.h"
#include "kiln/core/error.h"
#include "kiln/core/log.h"
#include "kiln/core/memory.h"
#include "kiln/core/openmp_wait_policy.h"
#include "kiln/core/ops.h"
#include "kiln/core/parallel.h"
#include "kiln/core/precision.h"
#include "kiln/core/random.h"
#include "kiln/core/shape.h"
#include "kiln/core/stream.h"
#include "kiln/core/tensor.h"
#include "kiln/core/timer.h"

// Layers and losses.
#include "kiln/layers/activations.h"
#include "kiln/layers/batch_norm.h"
#include "kiln/layers/batch_norm2d.h"
#include "kiln/layers/causal_self_attention.h"
#include "kiln/layers/conv2d.h"
#include "kiln/layers/cross_entropy_loss.h"
#include "kiln/layers/dropout.h"
#include "kiln/layers/embedding.h"
#include "kiln/layers/flatten.h"
#include "kiln/layers/gradient_check.h"
#include "kiln/layers/gradient_ready_hook.h"
#include "kiln/layers/layer_norm.h"
#include "kiln/layers/linear.h"
#include "kiln/layers/loss.h"
#include "kiln/layers/metrics.h"
#include "kiln/layers/module.h"
#include "kiln/layers/mse_loss.h"
#include "kiln/layers/pool2d.h"
#include "kiln/layers/sequence_cross_entropy_loss.h"
#include "kiln/layers/tied_linear.h"

// Models: the composites and the presets as C++ builders.
#include "kiln/models/generate.h"
#include "kiln/models/gpt.h"
#include "kiln/models/gpt_decoder.h"
#include "kiln/models/gpt_weight_decay.h"
#include "kiln/models/presets.h"
#include "kiln/models/residual.h"
#include "kiln/models/sequential.h"

// Optimizers and learning-rate schedules.
#include "kiln/optim/adam.h"
#include "kiln/optim/clip.h"
#include "kiln/optim/lr_schedule.h"
#include "kiln/optim/optimizer.h"
#include "kiln/optim/sgd.h"

// Data sets and the loader.
#include "kiln/data/article_dataset.h"
#include "kiln/data/batch.h"
#include "kiln/data/csv_dataset.h"
#include "kiln/data/data_loader.h"
#include "kiln/data/dataset.h"
#include "kiln/data/idx_dataset.h"
#include "kiln/data/image_folder_dataset.h"
#include "kiln/data/npy_dataset.h"
#include "kiln/data/subset_dataset.h"
#include "kiln/data/tensor_dataset.h"
#include "kiln/data/token_file.h"
#include "kiln/data/token_window_dataset.h"
#include "kiln/data/transformed_dataset.h"
#include "kiln/data/transforms.h"
#include "kiln/data/vocabulary.h"

// Training: the Trainer, its observers and diagnosis.
#include "kiln/training/checkpointer.h"
#include "kiln/training/console_reporter.h"
#include "kiln/training/diagnosis.h"
#include "kiln/training/early_stopping.h"
#include "kiln/training/json_log.h"
#include "kiln/training/nan_guard.h"
#include "kiln/training/observer.h"
#include "kiln/training/run_report.h"
#include "kiln/training/tensorboard_logger.h"
#include "kiln/training/trainer.h"

// Checkpoints: saving, reading and restoring them, and the run's record they keep.
#include "kiln/checkpoint/checkpoint.h"
#include "kiln/checkpoint/run_fingerprint.h"

// Reports: an epoch's figures and their text (the rest of report/ is in <kiln/report.h>).
#include "kiln/report/epoch_report.h"
#include "kiln/report/report_format.h"
