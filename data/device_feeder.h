// DeviceFeeder: the GPU end of the DataLoader. It owns a ring of device batch buffers (allocated
// once) and a copy stream; it copies host batches into the ring asynchronously, makes the
// consumer's stream wait for each copy, and lets a buffer be overwritten only after the
// consumer's stream has finished the work it queued on the batch the buffer held.
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/core/stream.h"
#include "kiln/core/timer.h"
#include "kiln/data/batch.h"

namespace kiln {

class DeviceFeeder {
 public:
  // x_shape: (batch_size, sample_shape...); y_shape and y_dtype: (batch_size) int32 labels or
  // (batch_size, target_shape...) float32 targets. `buffers` >= 2 lets one copy overlap one step.
  DeviceFeeder(Device device, const Shape& x_shape, const Shape& y_shape, DType y_dtype,
               int buffers);
  ~DeviceFeeder();  // waits for copies in flight: their buffers are about to be freed
  DeviceFeeder(const DeviceFeeder&) = delete;
  DeviceFeeder& operator=(const DeviceFeeder&) = delete;

  int buffers() const { return static_cast<int>(ring_.size()); }
  // Queues the copy of the first `rows` rows of (host_x, host_y) into buffer index % buffers,
  // behind the consumer's work on the batch that buffer held before; records `host_done` on the
  // copy stream: once it completes, the host memory may be refilled.
  void issue(std::int64_t index, const Tensor& host_x, const Tensor& host_y, std::int64_t rows,
             Event& host_done);
  // Batch `index` (issued before) as device views; the calling thread's current stream waits for
  // its copy, so the consumer's ops see the data without the host waiting.
  Batch deliver(std::int64_t index, std::int64_t rows);
  // The consumer has queued all its work on batch `index`: its buffer may be overwritten once the
  // current stream has run that work.
  void release(std::int64_t index);
  // Waits for every copy queued so far.
  void synchronize() const { copy_stream_.synchronize(); }
  // GPU time of the copies issued since construction or the last reset (waits for them); they
  // run on the copy stream, beside the consumer's compute.
  double copy_ms() { return copy_timer_.total_ms(); }
  void reset_copy_ms() { copy_timer_.reset(); }

 private:
  struct Buffer {
    Tensor x, y;
    Event copied;    // on the copy stream: the data is on the device
    Event consumed;  // on the consumer's stream: its work on the data is done
  };
  Buffer& buffer(std::int64_t index) { return ring_[static_cast<std::size_t>(index % buffers())]; }

  Device device_;
  Stream copy_stream_;
  std::vector<Buffer> ring_;
  RegionTimer copy_timer_;
};

}  // namespace kiln
