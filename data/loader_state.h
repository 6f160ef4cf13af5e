// The DataLoader's machinery, internal to data/: the host slot ring, the worker threads and the
// consumer's side, shared by data_loader.cpp (the public face) and loader_state.cpp. One mutex
// and two condition variables guard everything the workers and the consumer share.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "kiln/core/stream.h"
#include "kiln/data/data_loader.h"
#include "kiln/data/device_feeder.h"
#include "kiln/data/sampler.h"

namespace kiln {

namespace detail {

// One batch's worth of host memory, allocated once and refilled every `slots` batches.
struct HostSlot {
  Tensor x, y;
  Event copied;              // CUDA target: the copy out of this slot, waited for before refilling
  std::int64_t filled = -1;  // the batch it holds once complete; -1 while free or being filled
  std::exception_ptr error;  // what went wrong filling it, rethrown to the consumer in order
};

}  // namespace detail

struct DataLoader::State {
  State(std::shared_ptr<const Dataset> data, DataLoaderOptions opts);
  ~State();

  std::int64_t rows(std::int64_t b) const { return std::min(batch_size, samples - b * batch_size); }
  detail::HostSlot& slot(std::int64_t b) {
    return slots[static_cast<std::size_t>(b % num_slots())];
  }
  std::int64_t num_slots() const { return static_cast<std::int64_t>(slots.size()); }
  bool filler_may_claim() const {
    return shutdown || (running && next_claim < batches && next_claim < released + num_slots());
  }

  std::uint64_t start_epoch(std::int64_t first_batch);
  void stop_epoch();
  void shut_down();
  void fetch(std::int64_t b);
  void advance();
  detail::HostSlot* obtain(std::int64_t b, bool block);
  bool issue_next(bool block);
  void release_slot(std::int64_t b);
  void worker_loop(int worker);
  bool fill(detail::HostSlot& s, std::int64_t b, std::uint64_t generation_at_claim);

  // Fixed at construction.
  std::shared_ptr<const Dataset> dataset;
  DataLoaderOptions options;
  Sampler sampler;
  std::int64_t batch_size, samples, batches, sample_numel;
  std::int32_t classes;
  bool labels;  // class labels (int32); false: float targets of target_numel each
  std::int64_t target_numel;
  std::vector<detail::HostSlot> slots;
  std::unique_ptr<DeviceFeeder> feeder;  // CUDA target only; destroyed (synchronised) before slots
  std::vector<std::thread> workers;

  // Shared with the workers, under `mutex`.
  std::mutex mutex;
  std::condition_variable work_cv;   // to workers: a batch may be claimed, or shut down
  std::condition_variable ready_cv;  // to the consumer: a slot was filled or a worker went idle
  bool shutdown = false;
  bool running = false;
  std::atomic<std::uint64_t> generation{0};  // changed under `mutex`; fillers poll it to stop early
  std::int64_t next_claim = 0;
  std::int64_t released = 0;  // batches [0, released) gave their slot back
  int active = 0;             // workers inside fill()
  double wait_ms = 0.0, occupancy_sum = 0.0;
  std::int64_t requests = 0, delivered = 0, delivered_samples = 0;
  std::vector<double> busy_ms;

  // Written by start_epoch() while no worker fills; read-only to workers during the epoch.
  std::int64_t next_epoch = 0, running_epoch = 0;
  EpochOrder order;  // read by position, so an epoch may start at any batch

  // The consumer's own.
  std::int64_t current = -1;
  std::int64_t issued = 0;  // CUDA target: batches [0, issued) have their copy queued
  bool finished = true;
  Batch batch;
};

}  // namespace kiln
