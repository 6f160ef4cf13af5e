// train(TrainAppOptions): the train app's run as a library call, from specs and flags as strings
// (`--model article`, `--data fashion-mnist`, `--optimizer momentum`). It builds the data, the
// model, the optimizer, the schedule and the loaders from them, then trains through
// kiln::Trainer (training/trainer.h), which is the way in for a model, data set or loss of one's
// own.
#pragma once

#include <atomic>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "kiln/data/loader_tuning.h"
#include "kiln/distributed/communicator.h"
#include "kiln/report/epoch_report.h"
#include "kiln/training/diagnosis.h"

namespace kiln {

struct TrainAppOptions {
  std::string device = "cpu";
  std::string model = "article";
  std::string data = "fashion-mnist";
  std::int64_t samples = 0;  // train samples to use (0: all; the article set's size for "article")
  int epochs = 10;
  std::int64_t batch_size = 128;
  float lr = 0.05f;
  std::string optimizer = "momentum";  // sgd | momentum | nesterov | adam | adamw
  // Unset: 0.1 (nanoGPT's) for gpt: under adamw, else 0. For gpt: under adam and adamw it
  // applies to the matrices alone unless weight_decay_groups is false (weight_decay_groups.h).
  std::optional<float> weight_decay;
  bool weight_decay_groups = true;
  float clip_grad_norm = 0.0f;  // TrainerOptions::clip_grad_norm (0: no clipping)
  // The optimizer's settings (spec/optimizer_spec.h): momentum unset is the optimizer's own
  // (0.9; 0 for sgd); the rest default to PyTorch's.
  std::optional<float> momentum;
  bool nesterov = false;
  float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
  std::string loss = "cross-entropy";  // cross-entropy (class labels) | mse (float targets)
  // The share held out for testing where the data has no test split (0: none, no evaluation),
  // and a separate test source (spec/data_spec.h).
  std::optional<double> test_share;
  std::string test_data;
  std::string schedule = "cosine";
  int workers = 2;
  // --workers auto: the Trainer tries worker counts (and pinned memory on a GPU without
  // pin_memory) at the start and keeps the fastest (TrainerOptions::loader_tuning); `workers`
  // unused.
  bool workers_auto = false;
  LoaderTuningOptions
      loader_tuning;  // what --workers auto tries (its pin_memory: see workers_flag.h)
  bool pin_memory = false;
  bool shuffle = true;
  int threads = 0;  // CPU threads; 0 keeps the default (all cores)
  std::uint64_t seed = 1;
  std::string precision = "fp32";  // GPU matrix products: fp32, tf32 or bf16 (core/precision.h)
  // GPU, one process: forward and backward of each full batch replayed as one CUDA graph
  // (captured again after each epoch's evaluation and after a short last batch).
  bool cuda_graph = false;
  std::string checkpoint_dir;  // empty: no checkpoints
  int keep_checkpoints = 2;    // the newest checkpoints kept in checkpoint_dir
  bool resume = false;         // continue from checkpoint_dir's checkpoint, which must exist
  std::string init;            // safetensors weights to start from
  std::string log_json;        // JSON lines, one per epoch
  // Run outputs (rank 0): TensorBoard event files (training/tensorboard_logger.h) and the HTML run
  // report (training/run_report.h), each in a folder created if missing; empty: none.
  std::string tensorboard_dir;
  std::int64_t tensorboard_histograms =
      0;  // weight and gradient histograms every N epochs (0: none)
  std::string report_dir;
  bool quiet = false;
  bool evaluate = true;        // run the test split after each epoch
  std::int64_t max_steps = 0;  // stop after this many steps of each epoch (0: whole epochs)

  // A run counted in steps (TrainerOptions::steps): --steps N trains N steps in all (epochs is
  // then unused), evaluating every --eval-interval steps (0: once, at the end) on --eval-iters
  // test batches (0: all), the same batches each time.
  std::int64_t steps = 0;
  std::int64_t eval_interval = 0;
  std::int64_t eval_iters = 0;

  // Data parallelism. batch_size is the global batch, split evenly over the ranks; each rank
  // trains on its shard of the data and gradients are averaged, so N ranks at batch B follow
  // one rank at batch B. Only rank 0 prints, logs and writes checkpoints.
  std::vector<int> gpus;             // one process, one thread per listed GPU (NCCL)
  std::string distributed = "auto";  // auto: MPI when started by mpirun; none: this process alone
  double dist_timeout_s = 300;       // a collective waiting longer ends the job (0: never)
  double bucket_mb = 25;             // gradient all-reduce bucket size
};

struct TrainResult {
  std::vector<EpochReport> epochs;
  Diagnosis diagnosis;       // of the last epoch
  bool interrupted = false;  // stopped early by a request (Ctrl-C); a checkpoint was written
  int world_size = 1;        // ranks that trained together
};

// Throws kiln::Error for bad options, missing data, a GPU that cannot be used, or a NaN loss.
// `stop` (may be null) is polled after every step: when set, the step finishes, a checkpoint is
// saved (with a checkpoint folder) and training returns.
// Runs alone, as the ranks of an mpirun job, or as one replica thread per GPU of --gpus, as the
// options and the environment say (training/train_launch.cpp).
TrainResult train(const TrainAppOptions& options, std::ostream& out,
                  const std::atomic<bool>* stop = nullptr);

// One replica of a data-parallel job: this rank's share of every batch, gradients averaged over
// `comm` (which also decides the device for GPU replicas). `out` is written by rank 0 only.
TrainResult train_replica(const TrainAppOptions& options, std::ostream& out,
                          const std::atomic<bool>* stop, Communicator& comm);

}  // namespace kiln
