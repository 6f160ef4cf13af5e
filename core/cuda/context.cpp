// The CUDA context behind core/: device selection, pinned and cached device memory, per-thread
// current streams and cuBLAS handles, events and copies. Streams and cuBLAS handles are pooled
// and the pools deliberately never destroyed: tearing them down at process exit can race the
// driver's own shutdown, and a thread's handles are reused by the next thread instead.
#include "kiln/core/cuda/context.h"

#include <cuda_runtime_api.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "kiln/core/cuda/check.h"
#include "kiln/core/cuda/stream_workspace.h"
#include "kiln/core/device.h"
#include "kiln/core/log.h"
#include "kiln/core/memory.h"
#include "kiln/core/operand_checks.h"

namespace kiln::cuda {

namespace {

struct DeviceCount {
  int count = 0;
  std::string reason;
};

const DeviceCount& probe_devices() {
  static const DeviceCount probe = [] {
    DeviceCount result;
    const cudaError_t status = cudaGetDeviceCount(&result.count);
    if (status != cudaSuccess) {
      result.count = 0;
      int runtime_version = 0, driver_version = 0;
      (void)cudaRuntimeGetVersion(&runtime_version);
      (void)cudaDriverGetVersion(&driver_version);
      result.reason = ::kiln::detail::describe_cuda_unavailable(
          {cudaGetErrorName(status), cudaGetErrorString(status),
           status == cudaErrorInsufficientDriver, std::filesystem::exists("/proc/driver/nvidia"),
           runtime_version, driver_version});
      (void)cudaGetLastError();  // clear the sticky-free error so later calls start clean
    } else if (result.count == 0) {
      result.reason = "the CUDA driver reports no devices";
    }
    return result;
  }();
  return probe;
}

// A free list of per-device resources (streams, cuBLAS handles) shared by all threads.
template <typename Handle> class Pool {
 public:
  Handle take(int device, Handle (*make)(int)) {
    {
      std::lock_guard lock(mutex_);
      auto& free = free_[device];
      if (!free.empty()) {
        Handle h = free.back();
        free.pop_back();
        return h;
      }
    }
    return make(device);
  }
  void give_back(int device, Handle h) {
    std::lock_guard lock(mutex_);
    free_[device].push_back(h);
  }

 private:
  std::mutex mutex_;
  std::unordered_map<int, std::vector<Handle>> free_;
};

template <typename Handle> Pool<Handle>& pool() {
  static auto* instance = new Pool<Handle>();  // never destroyed, see the file comment
  return *instance;
}

// What the calling thread holds: its current stream and cuBLAS handle per device, returned to
// the pools when the thread ends.
struct ThreadState {
  int current_device = -1;
  std::unordered_map<int, cudaStream_t> current_stream;  // as set by StreamGuard
  std::unordered_map<int, cudaStream_t> default_stream;  // taken from the pool
  std::unordered_map<int, cublasHandle_t> cublas;
  ~ThreadState() {
    for (auto [device, s] : default_stream) pool<cudaStream_t>().give_back(device, s);
    for (auto [device, h] : cublas) pool<cublasHandle_t>().give_back(device, h);
  }
};
ThreadState& thread_state() {
  thread_local ThreadState state;
  return state;
}

// Makes `device` current for a scope and gives the thread its device back after: creating a
// stream or allocating for another device must not move the caller's later work there. A thread
// that never chose a device keeps this one (restoring "device 0" would create a context there).
class DeviceScope {
 public:
  explicit DeviceScope(int device) : previous_(thread_state().current_device), device_(device) {
    set_device(device);
  }
  ~DeviceScope() {
    if (previous_ < 0 || previous_ == device_) return;
    const cudaError_t status = cudaSetDevice(previous_);
    if (status != cudaSuccess) {
      log::error("restoring CUDA device {} failed: {}", previous_, cudaGetErrorString(status));
      (void)cudaGetLastError();  // logged here: the next launch check must not report it again
      return;
    }
    thread_state().current_device = previous_;
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_, device_;
};

cudaStream_t make_stream(int device) { return create_stream(device); }

cublasHandle_t make_cublas(int device) {
  const DeviceScope scope(device);
  cublasHandle_t handle = nullptr;
  KILN_CUBLAS_CHECK(cublasCreate(&handle));
  // Deterministic, exact fp32 by default; TF32 is an explicit precision choice elsewhere.
  KILN_CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH));
  return handle;
}

// The events the device allocator records behind a block's uses on other streams
// (record_stream), pooled per device: back in the pool once passed or superseded by a later use.
// Never throws (the allocator calls it under its lock, from deleters too): where recording fails
// it waits for the stream instead, which makes the event unnecessary.
class AllocatorEvents {
 public:
  explicit AllocatorEvents(int device) : device_(device) {}
  void* record(CachingAllocator::StreamKey key) noexcept {
    auto stream = static_cast<cudaStream_t>(const_cast<void*>(key));
    cudaEvent_t event = take();
    if (event != nullptr && cudaEventRecord(event, stream) == cudaSuccess) return event;
    (void)cudaGetLastError();
    log::error("the device allocator could not record an event on a stream; waiting for it");
    if (event != nullptr) give_back(event);
    (void)cudaStreamSynchronize(stream);
    (void)cudaGetLastError();
    return nullptr;
  }
  // Only a completed event has passed. Not ready, captured (recorded into a graph being
  // captured) or any error: not passed, and the error is cleared so that the next kernel's launch
  // check does not report it. A broken context keeps the block forever, which costs nothing: it
  // is never used again.
  bool passed(void* event) noexcept {
    const cudaError_t status = cudaEventQuery(static_cast<cudaEvent_t>(event));
    if (status == cudaSuccess) return true;
    (void)cudaGetLastError();
    if (status != cudaErrorNotReady)
      log::debug("the device allocator's event query: {}", cudaGetErrorString(status));
    return false;
  }
  void give_back(void* event) noexcept {
    std::lock_guard lock(mutex_);
    free_.push_back(static_cast<cudaEvent_t>(event));
  }

 private:
  cudaEvent_t take() noexcept {
    {
      std::lock_guard lock(mutex_);
      if (!free_.empty()) {
        cudaEvent_t event = free_.back();
        free_.pop_back();
        return event;
      }
    }
    try {
      const DeviceScope scope(device_);
      cudaEvent_t event = nullptr;
      if (cudaEventCreateWithFlags(&event, cudaEventDisableTiming) == cudaSuccess) return event;
      (void)cudaGetLastError();
    } catch (const std::exception& e) {
      log::error("the device allocator's event: {}", e.what());
    }
    return nullptr;
  }
  int device_;
  std::mutex mutex_;
  std::vector<cudaEvent_t> free_;
};

struct PinnedCounters {
  std::mutex mutex;
  std::unordered_map<void*, std::size_t> sizes;
  MemoryStats stats;
};
PinnedCounters& pinned_counters() {
  static auto* counters = new PinnedCounters();
  return *counters;
}

}  // namespace

int device_count() { return probe_devices().count; }
std::string unavailable_reason() { return probe_devices().reason; }

void check_device(int device) {
  const int count = device_count();
  KILN_CHECK(count > 0, "no CUDA device is usable: {}", unavailable_reason());
  KILN_CHECK(device >= 0 && device < count, "CUDA device {} does not exist: this machine has {}",
             device, count);
}

std::string device_name(int device) {
  cudaDeviceProp properties{};
  KILN_CUDA_CHECK(cudaGetDeviceProperties(&properties, device));
  return properties.name;
}

std::string pci_bus_id(int device) {
  char id[32] = {};
  KILN_CUDA_CHECK(cudaDeviceGetPCIBusId(id, sizeof id, device));
  return id;
}

void set_device(int device) {
  ThreadState& state = thread_state();
  if (state.current_device == device) return;
  KILN_CUDA_CHECK(cudaSetDevice(device));
  state.current_device = device;
}

void* pinned_allocate(std::size_t bytes) {
  KILN_CHECK(device_count() > 0, "pinned host memory needs a CUDA driver: {}",
             unavailable_reason());
  void* ptr = nullptr;
  KILN_CUDA_CHECK(cudaHostAlloc(&ptr, std::max<std::size_t>(bytes, 1), cudaHostAllocPortable));
  auto& c = pinned_counters();
  std::lock_guard lock(c.mutex);
  c.sizes[ptr] = bytes;
  ++c.stats.raw_allocations;
  c.stats.in_use += bytes;
  c.stats.reserved = c.stats.in_use;
  c.stats.peak_in_use = std::max(c.stats.peak_in_use, c.stats.in_use);
  c.stats.peak_reserved = c.stats.peak_in_use;
  return ptr;
}

void pinned_release(void* ptr) {
  const cudaError_t status = cudaFreeHost(ptr);
  if (status != cudaSuccess) {
    log::error("cudaFreeHost failed: {}", cudaGetErrorString(status));
    (void)cudaGetLastError();
  }
  auto& c = pinned_counters();
  std::lock_guard lock(c.mutex);
  auto it = c.sizes.find(ptr);
  if (it == c.sizes.end()) return;
  c.stats.in_use -= it->second;
  c.stats.reserved = c.stats.in_use;
  ++c.stats.raw_frees;
  c.sizes.erase(it);
}

MemoryStats pinned_stats() {
  auto& c = pinned_counters();
  std::lock_guard lock(c.mutex);
  return c.stats;
}

CachingAllocator& device_allocator(int device) {
  static std::mutex mutex;
  static auto* allocators = new std::unordered_map<int, std::unique_ptr<CachingAllocator>>();
  std::lock_guard lock(mutex);
  auto& slot = (*allocators)[device];
  if (!slot) {
    auto* events = new AllocatorEvents(device);  // never destroyed, as the allocator
    CachingAllocator::RawAllocator raw{
        [device](std::size_t bytes) -> void* {
          const DeviceScope scope(device);
          void* ptr = nullptr;
          const cudaError_t status = cudaMalloc(&ptr, bytes);
          if (status == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();  // out of memory is not sticky; let the caller retry
            return nullptr;
          }
          KILN_CUDA_CHECK(status);
          return ptr;
        },
        [device](void* ptr) {
          try {
            const DeviceScope scope(device);
            const cudaError_t status = cudaFree(ptr);
            if (status != cudaSuccess) {
              log::error("cudaFree failed: {}", cudaGetErrorString(status));
              (void)cudaGetLastError();
            }
          } catch (const std::exception& e) {
            log::error("cudaFree on device {}: {}", device, e.what());
          }
        },
        [] { return !capture_in_progress(); },
        [events](CachingAllocator::StreamKey stream) { return events->record(stream); },
        [events](void* event) { return events->passed(event); },
        [events](void* event) { events->give_back(event); },
        [device] { return capture_pool(device); },
        [](CachingAllocator::StreamKey stream) { return stream_capturing(stream); }};
    slot = std::make_unique<CachingAllocator>(std::move(raw), device_allocation_policy());
  }
  return *slot;
}

DeviceMemoryInfo memory_info(int device) {
  set_device(device);
  DeviceMemoryInfo info;
  KILN_CUDA_CHECK(cudaMemGetInfo(&info.free, &info.total));
  return info;
}

cudaStream_t current_stream(int device) {
  ThreadState& state = thread_state();
  if (auto it = state.current_stream.find(device); it != state.current_stream.end())
    return it->second;
  auto it = state.default_stream.find(device);
  if (it == state.default_stream.end())
    it = state.default_stream.emplace(device, pool<cudaStream_t>().take(device, make_stream)).first;
  return it->second;
}

void set_current_stream(int device, cudaStream_t stream) {
  thread_state().current_stream[device] = stream;
}

cudaStream_t create_stream(int device) {
  const DeviceScope scope(device);
  cudaStream_t stream = nullptr;
  // Non-blocking: no implicit synchronisation with the legacy default stream.
  KILN_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  return stream;
}

void destroy_stream(cudaStream_t stream) {
  const cudaError_t status = cudaStreamDestroy(stream);
  if (status != cudaSuccess) {
    log::debug("cudaStreamDestroy: {}", cudaGetErrorString(status));
    (void)cudaGetLastError();  // logged: not for the next launch check to report
  }
}

void copy_bytes(void* dst, const void* src, std::size_t bytes, int device) {
  cudaStream_t stream = current_stream(device);
  copy_bytes_async(dst, src, bytes, stream);
  synchronize_stream(stream);
}

void copy_bytes_async(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  KILN_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream));
}

void synchronize_stream(cudaStream_t stream) { KILN_CUDA_CHECK(cudaStreamSynchronize(stream)); }

void stream_wait_event(cudaStream_t stream, void* event) {
  KILN_CUDA_CHECK(cudaStreamWaitEvent(stream, static_cast<cudaEvent_t>(event), 0));
}

namespace {
// Work queued on `waiter` after the call waits for the work queued so far on `producer`, a
// stream of `producer_device` (the event is made and recorded there; the wait itself works
// across devices).
void stream_waits_for(cudaStream_t waiter, cudaStream_t producer, int producer_device) {
  cudaEvent_t event = nullptr;
  {
    const DeviceScope scope(producer_device);
    KILN_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    const cudaError_t recorded = cudaEventRecord(event, producer);
    if (recorded != cudaSuccess) destroy_event(event);
    KILN_CUDA_CHECK(recorded);
  }
  const cudaError_t waited = cudaStreamWaitEvent(waiter, event, 0);
  destroy_event(event);  // the wait holds what it needs
  KILN_CUDA_CHECK(waited);
}
}  // namespace

void wait_for_device(cudaStream_t stream, int device) {
  stream_waits_for(stream, current_stream(device), device);
}

void record_stream(int device, const void* ptr, cudaStream_t stream) {
  device_allocator(device).record_stream(const_cast<void*>(ptr), stream);
}

void record_use_from_device(int device, const void* ptr, cudaStream_t stream, int stream_device) {
  // The owner's current stream waits for the use; marking the block used on that stream holds
  // it from every other stream of its device too. Events of one device only: an allocator event
  // cannot be recorded on another device's stream.
  cudaStream_t owner = current_stream(device);
  stream_waits_for(owner, stream, stream_device);
  record_stream(device, ptr, owner);
}

bool stream_capturing(const void* stream) noexcept {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(static_cast<cudaStream_t>(const_cast<void*>(stream)), &status) !=
      cudaSuccess) {
    (void)cudaGetLastError();
    return capture_in_progress();  // unknown: assume the worst while anything captures
  }
  return status != cudaStreamCaptureStatusNone;
}

void* create_event(int device) {
  const DeviceScope scope(device);
  cudaEvent_t event = nullptr;
  KILN_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDefault));
  return event;
}

void destroy_event(void* event) {
  const cudaError_t status = cudaEventDestroy(static_cast<cudaEvent_t>(event));
  if (status != cudaSuccess) {
    log::debug("cudaEventDestroy: {}", cudaGetErrorString(status));
    (void)cudaGetLastError();  // logged: not for the next launch check to report
  }
}

void record_event(void* event, cudaStream_t stream) {
  KILN_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(event), stream));
}

void synchronize_event(void* event) {
  KILN_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(event)));
}

bool query_event(void* event) {
  const cudaError_t status = cudaEventQuery(static_cast<cudaEvent_t>(event));
  // Not ready, or recorded inside a graph capture (it completes only when a replay runs): not
  // passed, and not an error for the next launch check to find.
  if (status == cudaErrorNotReady || status == cudaErrorCapturedEvent) {
    (void)cudaGetLastError();
    return false;
  }
  KILN_CUDA_CHECK(status);
  return true;
}

float event_elapsed_ms(void* start, void* end) {
  synchronize_event(end);
  float ms = 0.0f;
  KILN_CUDA_CHECK(
      cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start), static_cast<cudaEvent_t>(end)));
  return ms;
}

cublasHandle_t cublas_handle(int device, cudaStream_t stream) {
  ThreadState& state = thread_state();
  auto it = state.cublas.find(device);
  if (it == state.cublas.end())
    it = state.cublas.emplace(device, pool<cublasHandle_t>().take(device, make_cublas)).first;
  // cublasSetStream drops the handle's workspace for cuBLAS's own pool, which under graph
  // capture allocates one per graph: every call sets the stream's workspace of kiln's own.
  KILN_CUBLAS_CHECK(cublasSetStream(it->second, stream));
  KILN_CUBLAS_CHECK(cublasSetWorkspace(
      it->second, stream_workspace(device, stream, kMatmulWorkspaceBytes), kMatmulWorkspaceBytes));
  return it->second;
}

}  // namespace kiln::cuda

namespace kiln::detail {

cudaStream_t prepare_cuda(Device device) {
  cuda::set_device(device.index());
  return cuda::current_stream(device.index());
}

}  // namespace kiln::detail
