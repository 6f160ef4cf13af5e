// Loader tuning, as tf.data's AUTOTUNE: each candidate setting (worker counts 0, 1, 2, 4, ... up
// to the cores; pinned host slots off and on for a CUDA target) reads the same first batches of
// the loader's next epoch through a consumer of the caller's (the Trainer runs the model's
// forward), and the fastest setting within noise, preferring fewer workers, is applied. The
// batches are only read: the loader's next epoch is the same whatever setting wins.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "kiln/data/data_loader.h"

namespace kiln {

struct LoaderSetting {
  int workers = 0;
  bool pin_memory = false;
  friend bool operator==(const LoaderSetting&, const LoaderSetting&) = default;
};

struct LoaderTrial {
  LoaderSetting setting;
  double samples_per_s = 0.0;
  double data_wait_percent = 0.0;  // of the trial's time, the consumer blocked waiting for a batch
};

struct LoaderTuningOptions {
  bool workers = true;      // try worker counts (false: keep the loader's num_workers)
  bool pin_memory = false;  // also try pinned host slots; only for a CUDA target (else off)
  // The worker counts to try; empty: 0, 1, 2, 4, ... doubling up to the cores, and the cores.
  std::vector<int> worker_counts;
  std::int64_t batches = 20;  // read per setting (an epoch's batches when it has fewer)
  // Each setting is tried this many times, round-robin, and its fastest trial kept: another
  // process's burst only slows a trial down, and the first round also warms the file cache.
  int rounds = 2;
  // Settings within this share of the fastest rate count as equally fast (timing noise).
  double noise = 0.05;
};

struct LoaderTuning {
  std::vector<LoaderTrial> trials;  // in the order tried
  LoaderTrial chosen;
  std::int64_t batches = 0;  // read per setting and round
  int rounds = 0;
  double noise = 0.0;
};

// 0, 1, 2, 4, ... doubling while below `cores`, then `cores` itself.
std::vector<int> worker_candidates(int cores);

// The settings to try for a loader with `current` options: worker counts as the options say
// (or the current one), each with pinned slots off, and on as well for a CUDA target when asked.
std::vector<LoaderSetting> loader_candidates(const LoaderTuningOptions& options,
                                             const DataLoaderOptions& current, int cores);

// The index of the trial to keep: of those within `noise` (a share) of the fastest rate, the one
// with the fewest workers, then unpinned. Pure, so that it can be checked on recorded figures.
std::size_t choose_loader_trial(std::span<const LoaderTrial> trials, double noise);

// What the tuning measures per batch: `consume` each batch (the training's own work on it), then
// `finish` once per trial (waits for queued device work; may be empty).
struct LoaderConsumer {
  std::function<void(const Batch&)> consume;
  std::function<void()> finish;
};

// Tries every candidate on `loader` (its first `batches` batches of the next epoch each, `rounds`
// times) and leaves the loader at the chosen setting, its next epoch unchanged. Throws
// kiln::Error on bad options.
LoaderTuning tune_loader(DataLoader& loader, const LoaderTuningOptions& options,
                         const LoaderConsumer& consumer, int cores);

// "2 workers, unpinned (samples/s over 20 batches each: 0 workers 850, 1 worker 1400, ...)".
std::string describe(const LoaderTuning& tuning);

}  // namespace kiln
