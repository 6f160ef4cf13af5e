// Streams and events over the CUDA runtime; on the CPU, no-ops and the steady clock.
// One of the CUDA seams: without CUDA a CUDA stream or event throws "built without CUDA".
#include "kiln/core/stream.h"

#include <chrono>

#include "kiln/core/error.h"
#include "kiln/core/log.h"
#include "kiln/core/tensor.h"

#if KILN_CUDA
#include "kiln/core/cuda/runtime.h"
#endif

namespace kiln {

namespace {
double steady_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}
}  // namespace

Stream Stream::current(Device device) {
  if (device.is_cpu()) return Stream(device, nullptr, nullptr);
#if KILN_CUDA
  cuda::check_device(device.index());
  return Stream(device, cuda::current_stream(device.index()), nullptr);
#else
  detail::throw_built_without_cuda("a CUDA stream");
#endif
}

Stream Stream::create(Device device) {
  if (device.is_cpu()) return Stream(device, nullptr, nullptr);
#if KILN_CUDA
  cuda::check_device(device.index());
  cudaStream_t handle = cuda::create_stream(device.index());
  std::shared_ptr<void> owner(handle, [](void* s) { cuda::destroy_stream(static_cast<cudaStream_t>(s)); });
  return Stream(device, handle, std::move(owner));
#else
  detail::throw_built_without_cuda("a CUDA stream");
#endif
}

void Stream::synchronize() const {
  if (device_.is_cpu()) return;
#if KILN_CUDA
  cuda::synchronize_stream(static_cast<cudaStream_t>(handle_));
#endif
}

void Stream::wait(const Event& event) const {
  KILN_CHECK(event.device() == device_, "a stream on {} cannot wait for an event on {}",
             device_.str(), event.device().str());
  if (device_.is_cpu()) return;
#if KILN_CUDA
  cuda::stream_wait_event(static_cast<cudaStream_t>(handle_), event.handle());
#endif
}

void record_stream(const Tensor& tensor, const Stream& stream) {
  if (!tensor.defined() || tensor.device().is_cpu()) return;
  KILN_CHECK(stream.device() == tensor.device(),
             "record_stream: a tensor on {} cannot be used on a stream of {}",
             tensor.device().str(), stream.device().str());
#if KILN_CUDA
  cuda::record_stream(tensor.device().index(), tensor.raw_data(),
                      static_cast<cudaStream_t>(stream.handle()));
#endif
}

StreamGuard::StreamGuard(const Stream& stream) : previous_(Stream::current(stream.device())) {
#if KILN_CUDA
  if (stream.device().is_cuda())
    cuda::set_current_stream(stream.device().index(), static_cast<cudaStream_t>(stream.handle()));
#endif
}

StreamGuard::~StreamGuard() {
#if KILN_CUDA
  if (previous_.device().is_cuda())
    cuda::set_current_stream(previous_.device().index(), static_cast<cudaStream_t>(previous_.handle()));
#endif
}

Event::Event(Device device) : device_(device) {
  if (device.is_cpu()) return;
#if KILN_CUDA
  cuda::check_device(device.index());
  handle_ = cuda::create_event(device.index());
#else
  detail::throw_built_without_cuda("a CUDA event");
#endif
}

Event::~Event() {
#if KILN_CUDA
  if (handle_ != nullptr) cuda::destroy_event(handle_);
#endif
}

Event::Event(Event&& other) noexcept
    : device_(other.device_), handle_(other.handle_), host_ms_(other.host_ms_) {
  other.handle_ = nullptr;
}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    std::swap(device_, other.device_);
    std::swap(handle_, other.handle_);
    std::swap(host_ms_, other.host_ms_);
  }
  return *this;
}

void Event::record(const Stream& stream) {
  KILN_CHECK(stream.device() == device_, "an event on {} cannot be recorded on a stream on {}",
             device_.str(), stream.device().str());
  if (device_.is_cpu()) {
    host_ms_ = steady_ms();
    return;
  }
#if KILN_CUDA
  cuda::record_event(handle_, static_cast<cudaStream_t>(stream.handle()));
#endif
}

void Event::synchronize() const {
#if KILN_CUDA
  if (device_.is_cuda()) {
    // Loader workers wait here on threads that never chose a device: without this the runtime
    // would create a context on device 0 for each of them, memory taken from every rank's GPU 0.
    cuda::set_device(device_.index());
    cuda::synchronize_event(handle_);
  }
#endif
}

bool Event::query() const {
#if KILN_CUDA
  if (device_.is_cuda()) return cuda::query_event(handle_);
#endif
  return true;
}

double Event::elapsed_ms(const Event& start, const Event& end) {
  KILN_CHECK(start.device() == end.device(), "elapsed time between events on {} and {}",
             start.device().str(), end.device().str());
  if (start.device().is_cpu()) return end.host_ms_ - start.host_ms_;
#if KILN_CUDA
  return cuda::event_elapsed_ms(start.handle_, end.handle_);
#else
  return 0.0;
#endif
}

}  // namespace kiln
