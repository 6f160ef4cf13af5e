// The article's manual experiments as functions: --tune-loader tries loader settings (workers x
// pinned memory), --find-batch-size grows the batch until the device runs out of memory, and
// bench --loader sweeps workers x pinned memory x batch size. Each candidate runs real training
// steps through train() and is measured, not guessed.
#pragma once

#include <iosfwd>
#include <vector>

#include "apps/train/train_options.h"

namespace kiln {

struct TrialResult {
  int workers = 0;
  bool pin_memory = false;
  std::int64_t batch_size = 0;
  double samples_per_s = 0.0;
  double epoch_seconds = 0.0;  // a whole epoch at the measured rate
  double data_wait_percent = 0.0;
  double gpu_memory_peak_mib = 0.0;
  bool out_of_memory = false;
};

// The loader tuning of --workers auto (data/loader_tuning.h) over workers {0, 1, 2, 4, 8, 16} x
// pin memory {off, on on a GPU}, `steps` batches each read through the model's forward. Prints
// the table and the setting --workers auto would keep; returns the trials (no GPU peak).
std::vector<TrialResult> tune_loader(TrainAppOptions base, std::ostream& out,
                                     std::int64_t steps = 40);

// Batch sizes doubling from `start` until out of memory (or `limit` on the CPU); prints the
// largest that fits and the one with the best throughput.
std::vector<TrialResult> find_batch_size(TrainAppOptions base, std::ostream& out,
                                         std::int64_t start = 32, std::int64_t limit = 65536,
                                         std::int64_t steps = 10);

struct LoaderSweep {
  std::vector<int> workers{0, 1, 2, 4, 8, 16};
  std::vector<std::int64_t> batch_sizes{64, 256, 1024};
  std::int64_t steps = 20;  // training steps per trial (0: a whole epoch), loader start-up included
};

// Every workers x pinned memory (on where CUDA works) x batch size of `sweep`; prints the table
// (epoch time, samples/s, data-wait share, GPU memory peak) and the best setting of each batch
// size. On the CPU, a batch size that runs out of memory is reported and the sweep goes on.
std::vector<TrialResult> loader_sweep(TrainAppOptions base, const LoaderSweep& sweep,
                                      std::ostream& out);

}  // namespace kiln
