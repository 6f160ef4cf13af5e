// Copies into the device ring. The ordering, per buffer b holding batches i, i + n, ...:
//   consumer stream:  ... step(i) ─ consumed[b] ...            step(i+n) waits copied[b]
//   copy stream:           waits consumed[b] ─ copy(i+n) ─ copied[b]
// so a copy never overwrites data a queued step still reads, and the host never blocks on either.
#include "kiln/data/device_feeder.h"

#include "kiln/core/log.h"
#include "kiln/core/ops.h"

namespace kiln {

DeviceFeeder::DeviceFeeder(Device device, const Shape& x_shape, const Shape& y_shape, DType y_dtype,
                           int buffers)
    : device_(device), copy_stream_(Stream::create(device)),
      copy_timer_("host->device copy", device) {
  KILN_CHECK(device.is_cuda(), "a DeviceFeeder copies to a CUDA device, found {}", device.str());
  KILN_CHECK(buffers >= 1, "a DeviceFeeder needs at least one buffer, found {}", buffers);
  ring_.reserve(static_cast<std::size_t>(buffers));
  for (int b = 0; b < buffers; ++b) {
    ring_.push_back(Buffer{Tensor::empty(x_shape, DType::f32, device),
                           Tensor::empty(y_shape, y_dtype, device), Event(device), Event(device)});
  }
}

DeviceFeeder::~DeviceFeeder() {
  try {
    copy_stream_.synchronize();
    // Steps queued on the consumer's stream may still read the buffers about to be freed.
    for (const Buffer& b : ring_) b.consumed.synchronize();
  } catch (const std::exception& e) {
    log::error("DeviceFeeder: waiting for copies before freeing the buffers failed: {}", e.what());
  }
}

void DeviceFeeder::issue(std::int64_t index, const Tensor& host_x, const Tensor& host_y,
                         std::int64_t rows, Event& host_done) {
  Buffer& b = buffer(index);
  // An event never recorded counts as complete, so the first pass over the ring waits for nothing.
  copy_stream_.wait(b.consumed);
  Tensor dst_x = b.x.slice(0, rows);
  Tensor dst_y = b.y.slice(0, rows);
  copy_timer_.start(copy_stream_);  // after the wait: the copy itself
  copy_async(host_x.slice(0, rows), dst_x, copy_stream_);
  copy_async(host_y.slice(0, rows), dst_y, copy_stream_);
  copy_timer_.stop(copy_stream_);
  b.copied.record(copy_stream_);
  host_done.record(copy_stream_);
}

Batch DeviceFeeder::deliver(std::int64_t index, std::int64_t rows) {
  Buffer& b = buffer(index);
  Stream::current(device_).wait(b.copied);
  return Batch{b.x.slice(0, rows), b.y.slice(0, rows), index};
}

void DeviceFeeder::release(std::int64_t index) {
  buffer(index).consumed.record(Stream::current(device_));
}

}  // namespace kiln
