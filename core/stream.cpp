// Streams and events over the device runtime (core/device_runtime.h): CUDA streams and events on
// a GPU; on the CPU, no-ops and the steady clock. Without a CUDA runtime (a CPU-only build) a
// CUDA stream or event throws "built without CUDA".
#include "kiln/core/stream.h"

#include "kiln/core/device_runtime.h"
#include "kiln/core/error.h"
#include "kiln/core/tensor.h"

namespace kiln {

Stream Stream::current(Device device) {
  DeviceRuntime& runtime = device_runtime(device, "a CUDA stream");
  runtime.check_device(device.index());
  return Stream(device, runtime.current_stream(device.index()), nullptr);
}

Stream Stream::create(Device device) {
  DeviceRuntime& runtime = device_runtime(device, "a CUDA stream");
  runtime.check_device(device.index());
  void* handle = runtime.create_stream(device.index());
  if (handle == nullptr) return Stream(device, nullptr, nullptr);
  std::shared_ptr<void> owner(handle, [&runtime](void* s) { runtime.destroy_stream(s); });
  return Stream(device, handle, std::move(owner));
}

void Stream::synchronize() const {
  device_runtime(device_, "a CUDA stream").synchronize_stream(handle_);
}

void Stream::wait(const Event& event) const {
  KILN_CHECK(event.device() == device_, "a stream on {} cannot wait for an event on {}",
             device_.str(), event.device().str());
  device_runtime(device_, "a CUDA stream").stream_wait_event(handle_, event.handle());
}

void record_stream(const Tensor& tensor, const Stream& stream) {
  if (!tensor.defined() || tensor.device().is_cpu()) return;
  KILN_CHECK(stream.device() == tensor.device(),
             "record_stream: a tensor on {} cannot be used on a stream of {}",
             tensor.device().str(), stream.device().str());
  device_runtime(tensor.device(), "record_stream")
      .record_stream(tensor.device().index(), tensor.raw_data(), stream.handle());
}

StreamGuard::StreamGuard(const Stream& stream) : previous_(Stream::current(stream.device())) {
  device_runtime(stream.device(), "a CUDA stream")
      .set_current_stream(stream.device().index(), stream.handle());
}

StreamGuard::~StreamGuard() {
  // previous_ was made by Stream::current, so its device's runtime exists.
  find_device_runtime(previous_.device().kind())
      ->set_current_stream(previous_.device().index(), previous_.handle());
}

Event::Event(Device device) : device_(device) {
  DeviceRuntime& runtime = device_runtime(device, "a CUDA event");
  runtime.check_device(device.index());
  handle_ = runtime.create_event(device.index());
}

Event::~Event() {
  if (handle_ != nullptr) find_device_runtime(device_.kind())->destroy_event(handle_);
}

Event::Event(Event&& other) noexcept : device_(other.device_), handle_(other.handle_) {
  other.handle_ = nullptr;
}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    std::swap(device_, other.device_);
    std::swap(handle_, other.handle_);
  }
  return *this;
}

void Event::record(const Stream& stream) {
  KILN_CHECK(stream.device() == device_, "an event on {} cannot be recorded on a stream on {}",
             device_.str(), stream.device().str());
  device_runtime(device_, "a CUDA event").record_event(handle_, stream.handle());
}

void Event::synchronize() const {
  device_runtime(device_, "a CUDA event").synchronize_event(device_.index(), handle_);
}

bool Event::query() const { return device_runtime(device_, "a CUDA event").query_event(handle_); }

double Event::elapsed_ms(const Event& start, const Event& end) {
  KILN_CHECK(start.device() == end.device(), "elapsed time between events on {} and {}",
             start.device().str(), end.device().str());
  return device_runtime(start.device(), "a CUDA event")
      .event_elapsed_ms(start.handle_, end.handle_);
}

}  // namespace kiln
