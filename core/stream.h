// Streams and events, over the device runtime (core/device_runtime.h). On a CUDA device a Stream
// is an ordered queue of work (cudaStream_t) and an Event a marker in it; on the CPU work is
// synchronous, a Stream is a no-op and an Event records the host's steady clock. Each host
// thread has a current stream per device, used by every op; StreamGuard switches it for a scope.
#pragma once

#include <memory>

#include "kiln/core/device.h"

namespace kiln {

class Event;
class Tensor;

class Stream {
 public:
  // The calling thread's current stream on `device` (created on first use, non-blocking).
  static Stream current(Device device);
  // A new non-blocking stream, e.g. for host-to-device copies beside compute.
  static Stream create(Device device);

  Device device() const { return device_; }
  // The cudaStream_t, as an opaque pointer; nullptr on the CPU.
  void* handle() const { return handle_; }
  void synchronize() const;
  // Work queued on this stream after the call waits until `event` has completed.
  void wait(const Event& event) const;

  friend bool operator==(const Stream& a, const Stream& b) {
    return a.device_ == b.device_ && a.handle_ == b.handle_;
  }

 private:
  Stream(Device device, void* handle, std::shared_ptr<void> owner)
      : device_(device), handle_(handle), owner_(std::move(owner)) {}
  friend class StreamGuard;
  Device device_;
  void* handle_ = nullptr;
  std::shared_ptr<void> owner_;  // destroys streams made by create()
};

// Marks that the work just queued on `stream` uses `tensor`'s device memory, allocated on another
// stream of the same device (a side stream's kernels): once the tensor's storage is freed, the
// memory is not handed out again until `stream` has passed this point (as PyTorch's recordStream;
// call it after queuing the work). copy_async and the NCCL collectives do it themselves. No-op
// for CPU tensors.
void record_stream(const Tensor& tensor, const Stream& stream);

// Makes `stream` the current stream of its device for this thread until the guard ends.
class StreamGuard {
 public:
  explicit StreamGuard(const Stream& stream);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  Stream previous_;
};

class Event {
 public:
  explicit Event(Device device);  // with timing enabled
  ~Event();
  Event(Event&&) noexcept;
  Event& operator=(Event&&) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  Device device() const { return device_; }
  void record(const Stream& stream);
  void record() { record(Stream::current(device_)); }
  void synchronize() const;
  bool query() const;                       // true once the work before record() has completed
  void* handle() const { return handle_; }  // cudaEvent_t on CUDA
  // Milliseconds between two recorded events of one device (waits for `end`).
  static double elapsed_ms(const Event& start, const Event& end);

 private:
  Device device_;
  void* handle_ = nullptr;  // the device runtime's event (core/device_runtime.h)
};

}  // namespace kiln
