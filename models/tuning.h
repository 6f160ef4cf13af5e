// The article's manual experiments as functions: --tune-loader tries loader settings (workers x
// pinned memory) and --find-batch-size grows the batch until the device runs out of memory. Each
// candidate runs a few real training steps through train() and is measured, not guessed.
#pragma once

#include <iosfwd>
#include <vector>

#include "kiln/models/trainer.h"

namespace kiln {

struct TrialResult {
  int workers = 0;
  bool pin_memory = false;
  std::int64_t batch_size = 0;
  double samples_per_s = 0.0;
  double data_wait_percent = 0.0;
  double gpu_memory_peak_mib = 0.0;
  bool out_of_memory = false;
};

// Workers {0, 1, 2, 4, 8, 16} x pin memory {off, on where CUDA works}; `steps` steps each.
// Prints the table and the best setting; returns the trials.
std::vector<TrialResult> tune_loader(TrainOptions base, std::ostream& out, std::int64_t steps = 40);

// Batch sizes doubling from `start` until out of memory (or `limit` on the CPU); prints the
// largest that fits and the one with the best throughput.
std::vector<TrialResult> find_batch_size(TrainOptions base, std::ostream& out, std::int64_t start = 32,
                                         std::int64_t limit = 65536, std::int64_t steps = 10);

}  // namespace kiln
