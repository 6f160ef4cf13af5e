// The DataLoader's public face: construction, epochs, iteration and statistics, over the
// machinery in loader_state.{h,cpp}.
#include "kiln/data/data_loader.h"

#include <algorithm>

#include "kiln/core/error.h"
#include "kiln/data/loader_state.h"

namespace kiln {

DataLoader::DataLoader(std::shared_ptr<const Dataset> dataset, DataLoaderOptions options)
    : state_(std::make_unique<State>(std::move(dataset), options)) {}

DataLoader::~DataLoader() = default;

void DataLoader::set_epoch(std::int64_t epoch) {
  KILN_CHECK(epoch >= 0, "set_epoch needs a non-negative epoch, found {}", epoch);
  state_->next_epoch = epoch;
}
std::int64_t DataLoader::epoch() const { return state_->next_epoch; }
std::int64_t DataLoader::batches_per_epoch() const { return state_->batches; }
std::int64_t DataLoader::samples_per_epoch() const { return state_->samples; }
const DataLoaderOptions& DataLoader::options() const { return state_->options; }
const Dataset& DataLoader::dataset() const { return *state_->dataset; }

void DataLoader::set_workers(int num_workers, bool pin_memory) {
  const DataLoaderOptions before = state_->options;
  DataLoaderOptions options = before;
  options.num_workers = num_workers;
  options.pin_memory = pin_memory;
  check_data_loader_options(options);
  std::shared_ptr<const Dataset> dataset = state_->dataset;
  const std::int64_t next_epoch = state_->next_epoch;
  state_.reset();  // joins the workers and frees the slots before the new ones are allocated
  try {
    state_ = std::make_unique<State>(dataset, options);
  } catch (...) {  // pinned memory without CUDA, say: the loader stays as it was
    state_ = std::make_unique<State>(dataset, before);
    state_->next_epoch = next_epoch;
    throw;
  }
  state_->next_epoch = next_epoch;
}

DataLoader::Iterator DataLoader::begin() { return begin_at(0); }

DataLoader::Iterator DataLoader::begin_at(std::int64_t first_batch) {
  KILN_CHECK(first_batch >= 0, "DataLoader::begin_at needs a non-negative batch, found {}",
             first_batch);
  return Iterator(state_.get(), state_->start_epoch(first_batch));
}

LoaderStats DataLoader::stats() const {
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  LoaderStats out;
  out.wait_ms = s.wait_ms;
  out.worker_busy_ms = s.busy_ms;
  out.mean_queue_occupancy =
      s.requests > 0 ? s.occupancy_sum / static_cast<double>(s.requests) : 0.0;
  out.queue_capacity = s.num_slots() + (s.feeder ? s.feeder->buffers() - 1 : 0);
  out.batches = s.delivered;
  out.samples = s.delivered_samples;
  out.copy_ms = s.feeder ? s.feeder->copy_ms() : 0.0;
  return out;
}

void DataLoader::reset_stats() {
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  s.wait_ms = s.occupancy_sum = 0.0;
  s.requests = s.delivered = s.delivered_samples = 0;
  std::fill(s.busy_ms.begin(), s.busy_ms.end(), 0.0);
  if (s.feeder) s.feeder->reset_copy_ms();
}

bool DataLoader::Iterator::finished() const {
  return state_->finished || state_->generation.load() != generation_;
}

const Batch& DataLoader::Iterator::operator*() const {
  KILN_CHECK(!finished(),
             "a DataLoader iterator was dereferenced after its epoch ended or was stopped");
  return state_->batch;
}

DataLoader::Iterator& DataLoader::Iterator::operator++() {
  KILN_CHECK(!finished(),
             "a DataLoader iterator was advanced after its epoch ended or was stopped");
  state_->advance();
  return *this;
}

}  // namespace kiln
