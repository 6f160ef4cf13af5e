// The loader's machinery: one mutex, two condition variables, a ring of host slots. Batch b of an
// epoch always goes to slot b % slots, and a worker may claim b only once the consumer released
// batch b - slots; the consumer takes batches strictly in order. That is what makes the order
// (and the bits) independent of num_workers: workers only decide *when* a slot is filled.
#include "kiln/data/loader_state.h"

#include <algorithm>
#include <chrono>

#include "kiln/core/error.h"
#include "kiln/core/log.h"

namespace kiln {

using detail::HostSlot;

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

Error wrap_sample_error(const std::exception* e, std::int64_t index, std::int64_t batch,
                        std::int64_t epoch, const Dataset& dataset) {
  const auto* error = dynamic_cast<const Error*>(e);
  return Error(fmt::format("loading sample {} (batch {} of epoch {}) of {} failed: {}", index,
                           batch, epoch, dataset.describe(),
                           error != nullptr ? error->text()
                           : e != nullptr   ? e->what()
                                            : "unknown exception"),
               error != nullptr ? error->where() : "loader_state.cpp");
}

// The data set's size, after checking the data set and the options (the sampler is made first).
std::int64_t checked_size(const Dataset* dataset, const DataLoaderOptions& options) {
  KILN_CHECK(dataset != nullptr, "a DataLoader needs a data set, found none");
  check_data_loader_options(options);
  return dataset->size();
}

// (rows, extents...): a batch slot of `rows` samples of `sample` (or targets), refused, naming the
// data set, when its element count passes int64. `sample` comes through a call, so that a data
// set whose own shape overflows is named too.
template <typename ShapeOf>
Shape slot_shape(std::int64_t rows, ShapeOf&& sample_of, const Dataset& dataset, const char* what) {
  try {
    const Shape sample = sample_of();
    std::vector<std::int64_t> dims{rows};
    dims.insert(dims.end(), sample.dims().begin(), sample.dims().end());
    return Shape(std::move(dims));
  } catch (const Error& e) {
    throw Error(fmt::format("a DataLoader over {}: a batch of {} {}: {}", dataset.describe(), rows,
                            what, e.text()),
                e.where());
  }
}

// (samples + batch - 1) / batch without its overflow for a batch near 2^63.
std::int64_t ceil_div(std::int64_t samples, std::int64_t batch) {
  return samples / batch + (samples % batch != 0 ? 1 : 0);
}

}  // namespace

DataLoader::State::State(std::shared_ptr<const Dataset> data, DataLoaderOptions opts)
    : dataset(std::move(data)), options(opts),
      sampler(checked_size(dataset.get(), opts),
              SamplerOptions{opts.shuffle, opts.seed, opts.rank, opts.world_size, opts.drop_last}) {
  if (options.pin_memory)
    KILN_CHECK(cuda_available(),
               "pin_memory needs CUDA: page-locked host memory comes from the CUDA "
               "driver, and CUDA is not usable here ({}); set pin_memory = false",
               cuda_unavailable_reason());
  if (options.device.is_cuda())
    KILN_CHECK(cuda_available(),
               "a DataLoader for {} needs CUDA, which is not usable here ({}); use "
               "the CPU",
               options.device.str(), cuda_unavailable_reason());
  batch_size = options.batch_size;
  samples = sampler.size();
  batches = options.drop_last ? samples / batch_size : ceil_div(samples, batch_size);
  classes = dataset->num_classes();
  // A slot holds the largest batch there is: a batch_size past the data set's size allocates
  // only the rows an epoch can fill.
  const std::int64_t slot_rows = std::min(batch_size, std::max<std::int64_t>(samples, 1));
  const Shape x_shape = slot_shape(
      slot_rows, [&] { return dataset->sample_shape(); }, *dataset, "samples");
  sample_numel = x_shape.product(1, x_shape.rank());
  // Targets: (B) int32 class labels, (B, T) of a sequence's labels, or (B, target_shape...)
  // float32 values.
  labels = dataset->has_class_labels();
  const Shape y_shape = slot_shape(
      slot_rows, [&] { return dataset->target_shape(); }, *dataset, "targets");
  target_numel = y_shape.product(1, y_shape.rank());
  const DType y_dtype = labels ? DType::i32 : DType::f32;

  const int count = options.num_workers * options.prefetch + 1;
  slots.reserve(static_cast<std::size_t>(count));
  for (int k = 0; k < count; ++k) {
    Tensor x = options.pin_memory ? Tensor::empty_pinned(x_shape) : Tensor::empty(x_shape);
    Tensor y = options.pin_memory ? Tensor::empty_pinned(y_shape, y_dtype)
                                  : Tensor::empty(y_shape, y_dtype);
    slots.push_back(HostSlot{std::move(x), std::move(y), Event(options.device), -1, nullptr});
  }
  // Two buffers: one is copied into while the consumer's stream computes on the other.
  if (options.device.is_cuda())
    feeder = std::make_unique<DeviceFeeder>(options.device, x_shape, y_shape, y_dtype, 2);
  busy_ms.assign(static_cast<std::size_t>(std::max(1, options.num_workers)), 0.0);
  try {
    for (int w = 0; w < options.num_workers; ++w)
      workers.emplace_back([this, w] { worker_loop(w); });
  } catch (...) {
    shut_down();  // joins the workers already started: a joinable std::thread must not die
    throw;
  }
}

DataLoader::State::~State() { shut_down(); }

void DataLoader::State::shut_down() {
  // The consumer may have left mid-epoch with steps still queued on the batch it held.
  try {
    if (feeder && current >= 0 && !finished) feeder->release(current);
  } catch (const std::exception& e) {
    log::error("DataLoader: marking the last batch consumed failed: {}", e.what());
  }
  finished = true;
  {
    std::lock_guard lock(mutex);
    shutdown = true;
    running = false;
    generation.fetch_add(1);
  }
  work_cv.notify_all();
  for (std::thread& t : workers)
    if (t.joinable()) t.join();
  workers.clear();
}

std::uint64_t DataLoader::State::start_epoch(std::int64_t first_batch) {
  stop_epoch();
  running_epoch = next_epoch++;
  order = sampler.order(running_epoch);
  first_batch = std::min(first_batch, batches);
  {
    std::lock_guard lock(mutex);
    // Batches before first_batch count as released: slot b % slots stays batch b's slot.
    next_claim = first_batch;
    released = first_batch;
    running = true;
  }
  work_cv.notify_all();
  issued = first_batch;
  current = -1;
  finished = first_batch >= batches;
  const std::uint64_t gen = generation.load();
  if (!finished) fetch(first_batch);
  return gen;
}

void DataLoader::State::stop_epoch() {
  // A batch left without ++ (a break, an error) may still be read by steps queued on it.
  if (feeder && current >= 0 && !finished) feeder->release(current);
  std::unique_lock lock(mutex);
  running = false;
  generation.fetch_add(1);
  ready_cv.wait(lock, [this] { return active == 0; });
  for (HostSlot& s : slots) {
    s.filled = -1;
    s.error = nullptr;
  }
  finished = true;
  batch = Batch{};
}

void DataLoader::State::fetch(std::int64_t b) {
  {
    std::lock_guard lock(mutex);
    std::int64_t ahead = feeder ? std::max<std::int64_t>(0, issued - b) : 0;
    for (const HostSlot& s : slots) ahead += s.filled >= b ? 1 : 0;
    occupancy_sum += static_cast<double>(ahead);
    ++requests;
  }
  if (!feeder) {
    HostSlot& s = *obtain(b, true);
    const std::int64_t n = rows(b);
    batch = n == s.x.size(0) ? Batch{s.x, s.y, b} : Batch{s.x.slice(0, n), s.y.slice(0, n), b};
  } else {
    while (issued <= b) issue_next(true);
    // Queue the copies of batches already loaded, so they overlap the consumer's next steps.
    while (issued < std::min(b + feeder->buffers(), batches) && issue_next(false)) {
    }
    batch = feeder->deliver(b, rows(b));
  }
  current = b;
  std::lock_guard lock(mutex);
  ++delivered;
  delivered_samples += rows(b);
}

void DataLoader::State::advance() {
  if (feeder) {
    feeder->release(current);
  } else {
    batch = Batch{};  // drops the views of the slot before giving it back
    release_slot(current);
  }
  if (current + 1 >= batches) {
    finished = true;
    batch = Batch{};
    return;
  }
  fetch(current + 1);
}

// The slot holding batch b once filled; nullptr if not ready and !block. A fill error is
// rethrown (ending the epoch) only when blocking, i.e. when the consumer has reached batch b.
HostSlot* DataLoader::State::obtain(std::int64_t b, bool block) {
  HostSlot& s = slot(b);
  if (options.num_workers == 0) {
    if (!block) return nullptr;
    const auto start = Clock::now();
    fill(s, b, generation.load());
    const double ms = ms_since(start);
    std::lock_guard lock(mutex);
    wait_ms += ms;
    busy_ms[0] += ms;
  } else {
    std::unique_lock lock(mutex);
    if (!block) return s.filled == b && !s.error ? &s : nullptr;
    const auto start = Clock::now();
    ready_cv.wait(lock, [&] { return s.filled == b; });
    wait_ms += ms_since(start);
  }
  if (s.error) {
    const std::exception_ptr error = s.error;
    stop_epoch();
    std::rethrow_exception(error);
  }
  return &s;
}

bool DataLoader::State::issue_next(bool block) {
  HostSlot* s = obtain(issued, block);
  if (s == nullptr) return false;
  feeder->issue(issued, s->x, s->y, rows(issued), s->copied);
  release_slot(issued);  // the next filler of this slot first waits for s->copied
  ++issued;
  return true;
}

void DataLoader::State::release_slot(std::int64_t b) {
  {
    std::lock_guard lock(mutex);
    slot(b).filled = -1;
    released = b + 1;
  }
  work_cv.notify_all();
}

void DataLoader::State::worker_loop(int worker) {
  std::unique_lock lock(mutex);
  for (;;) {
    work_cv.wait(lock, [this] { return filler_may_claim(); });
    if (shutdown) return;
    const std::int64_t b = next_claim++;
    const std::uint64_t gen = generation.load();
    ++active;
    lock.unlock();
    const auto start = Clock::now();
    HostSlot& s = slot(b);
    const bool complete = fill(s, b, gen);
    const double ms = ms_since(start);
    lock.lock();
    --active;
    busy_ms[static_cast<std::size_t>(worker)] += ms;
    if (complete && gen == generation.load()) s.filled = b;
    ready_cv.notify_all();
  }
}

// Fills slot s with batch b; false if the epoch was stopped meanwhile. A sample that throws
// ends the fill with the error kept in the slot, wrapped with the sample index and data set.
bool DataLoader::State::fill(HostSlot& s, std::int64_t b, std::uint64_t generation_at_claim) {
  s.error = nullptr;
  try {
    s.copied.synchronize();  // a copy to the GPU may still be reading this slot
  } catch (...) {  // a CUDA error: the consumer rethrows it; thrown here it would end the process
    s.error = std::current_exception();
    return true;
  }
  float* x = s.x.data<float>();
  const TargetOut y = labels ? TargetOut(s.y.data<std::int32_t>()) : TargetOut(s.y.data<float>());
  const std::int64_t first = b * batch_size;
  for (std::int64_t i = 0, n = rows(b); i < n; ++i) {
    if (generation.load(std::memory_order_relaxed) != generation_at_claim) return false;
    const std::int64_t index = order[first + i];
    try {
      const TargetOut target = y.at(i, target_numel);
      dataset->get_for_epoch(index, running_epoch, x + i * sample_numel, target);
      if (labels) {
        for (std::int64_t k = 0; k < target_numel; ++k) {
          const std::int32_t label = target.label()[k];
          KILN_CHECK(label >= 0 && label < classes, "its label {} is outside [0, {})", label,
                     classes);
        }
      }
    } catch (const std::exception& e) {
      s.error = std::make_exception_ptr(wrap_sample_error(&e, index, b, running_epoch, *dataset));
      return true;
    } catch (...) {
      s.error =
          std::make_exception_ptr(wrap_sample_error(nullptr, index, b, running_epoch, *dataset));
      return true;
    }
  }
  return true;
}

}  // namespace kiln
