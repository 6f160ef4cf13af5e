// DataLoader: batches of a Dataset in sampler order, filled by worker threads into host slots
// allocated once (pinned when asked) and, for a CUDA target, copied asynchronously to the device
// on a copy stream that the consumer's stream waits on. Batches come out in the same order with
// the same bits whatever num_workers is. Iterate with range-for:
//   for (const kiln::Batch& b : loader) { ... }   // b valid until the loop advances
#pragma once

#include <cstdint>
#include <iterator>
#include <memory>
#include <vector>

#include "kiln/core/device.h"
#include "kiln/data/batch.h"
#include "kiln/data/dataset.h"

namespace kiln {

struct DataLoaderOptions {
  std::int64_t batch_size = 64;
  bool shuffle = true;
  std::uint64_t seed = 0;
  // Drops the last, short batch of an epoch; with world_size > 1 it also makes the sampler drop
  // the tail of the order rather than pad it (see SamplerOptions::drop_last).
  bool drop_last = false;
  // Threads that fill batches; 0 loads in the calling thread, as in PyTorch. At most
  // kMaxLoaderWorkers.
  int num_workers = 0;
  // Batches each worker may have ready ahead of the consumer (PyTorch's prefetch_factor): the
  // loader holds num_workers * prefetch + 1 host slots. At most kMaxLoaderPrefetch.
  int prefetch = 2;
  // Page-locked host slots, so that copies to a GPU run asynchronously at full speed. Needs CUDA.
  // With `device` on the CPU the batch is the slot itself, refilled once the iterator moves on:
  // a copy_async from it must have finished (synchronize its stream) before ++it. With a CUDA
  // `device` the loader copies and orders everything itself.
  bool pin_memory = false;
  // Where batches are delivered; a CUDA device gets a ring of device buffers and a copy stream.
  Device device = Device::cpu();
  // Data-parallel sharding: this process sees the share of rank `rank` out of `world_size`.
  int rank = 0;
  int world_size = 1;
};

// More loader threads than this is a typing mistake, not a setting (and ends in EAGAIN); more
// batches ahead per worker than this only holds memory. The train app's flags keep the same rule.
constexpr int kMaxLoaderWorkers = 256;
constexpr int kMaxLoaderPrefetch = 64;

// Throws kiln::Error naming the field (DataLoaderOptions::num_workers, ...) and its value when an
// option is out of range. The DataLoader calls it; callers may check options earlier with it.
void check_data_loader_options(const DataLoaderOptions& options);

// What the profiler reports about the loader, accumulated since construction or reset_stats().
struct LoaderStats {
  double wait_ms =
      0.0;  // time the consumer was blocked waiting for a batch (loading, with 0 workers)
  // Wall time each worker spent filling batches (including time the OS had it descheduled, so
  // with more workers than cores the sum exceeds the elapsed time); with num_workers = 0, one
  // entry for the calling thread.
  std::vector<double> worker_busy_ms;
  // Batches ready ahead of the consumer when it asked for the next one, averaged over requests:
  // near 0 the training loop waits for data; near queue_capacity the loader keeps up easily.
  double mean_queue_occupancy = 0.0;
  std::int64_t queue_capacity = 0;
  std::int64_t batches = 0;  // batches delivered
  std::int64_t samples = 0;  // samples delivered
  // CUDA target: GPU time of the host-to-device copies, timed on the copy stream (reading it
  // waits for the copies). They overlap the consumer's compute unless it waits for them.
  double copy_ms = 0.0;
};

class DataLoader {
 public:
  class Iterator;

  // Throws kiln::Error on bad options, on pin_memory or a CUDA device where CUDA is unusable.
  DataLoader(std::shared_ptr<const Dataset> dataset, DataLoaderOptions options = {});
  // Stops the epoch in progress and joins every worker.
  ~DataLoader();
  DataLoader(const DataLoader&) = delete;
  DataLoader& operator=(const DataLoader&) = delete;

  // The epoch the next begin() runs; each begin() then advances it by one, so successive loops
  // see epochs 0, 1, 2, ... unless set_epoch() says otherwise (e.g. resuming from a checkpoint).
  void set_epoch(std::int64_t epoch);
  std::int64_t epoch() const;
  std::int64_t batches_per_epoch() const;
  std::int64_t samples_per_epoch() const;  // this rank's, before drop_last trims a short batch
  const DataLoaderOptions& options() const;
  const Dataset& dataset() const;
  // Rebuilds the workers and host slots for another num_workers and pin_memory, the rest of the
  // options and the epoch the next begin() runs unchanged, so the batches stay the same (the
  // loader tuning of data/loader_tuning.h tries settings so). Ends the epoch in progress; its
  // iterators must not be used again. Statistics restart.
  void set_workers(int num_workers, bool pin_memory);

  // Starts an epoch (stopping one still in progress, whose iterators become finished) and waits
  // for its first batch. A worker's exception is rethrown here or by ++, naming the sample index
  // and the data set, after which the epoch is over.
  Iterator begin();
  // begin() from batch `first_batch` of the epoch (clamped to batches_per_epoch()): the batches
  // before it are not loaded, and the ones from it on are those begin() gives there, as resuming
  // inside an epoch needs. Throws kiln::Error for a negative first_batch.
  Iterator begin_at(std::int64_t first_batch);
  std::default_sentinel_t end() const { return {}; }

  LoaderStats stats() const;
  void reset_stats();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// An input iterator over one epoch; *it stays valid until ++it.
class DataLoader::Iterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = Batch;
  using difference_type = std::ptrdiff_t;
  using reference = const Batch&;
  using pointer = const Batch*;

  reference operator*() const;
  pointer operator->() const { return &**this; }
  Iterator& operator++();
  void operator++(int) { ++*this; }
  friend bool operator==(const Iterator& it, std::default_sentinel_t) { return it.finished(); }

 private:
  friend class DataLoader;
  Iterator(State* state, std::uint64_t generation) : state_(state), generation_(generation) {}
  bool finished() const;

  State* state_;
  std::uint64_t generation_;  // the epoch run it belongs to
};

}  // namespace kiln
