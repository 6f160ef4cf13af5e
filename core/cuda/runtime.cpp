// The CUDA runtime behind core/: device selection, pinned and cached device memory, per-thread
// current streams and cuBLAS handles, events and copies. Streams and cuBLAS handles are pooled
// and the pools deliberately never destroyed: tearing them down at process exit can race the
// driver's own shutdown, and a thread's handles are reused by the next thread instead.
#include "kiln/core/cuda/runtime.h"

#include <cuda_runtime_api.h>

#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "kiln/core/cuda/check.h"
#include "kiln/core/dispatch.h"
#include "kiln/core/log.h"
#include "kiln/core/memory.h"

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
      result.reason = fmt::format("{} ({})", cudaGetErrorString(status), cudaGetErrorName(status));
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

cudaStream_t make_stream(int device) { return create_stream(device); }

cublasHandle_t make_cublas(int device) {
  set_device(device);
  cublasHandle_t handle = nullptr;
  KILN_CUBLAS_CHECK(cublasCreate(&handle));
  // Deterministic, exact fp32 by default; TF32 is an explicit precision choice elsewhere.
  KILN_CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH));
  return handle;
}

// What the calling thread holds: its current stream and cuBLAS handle per device, returned to
// the pools when the thread ends.
struct ThreadState {
  int current_device = -1;
  std::unordered_map<int, cudaStream_t> current_stream;   // as set by StreamGuard
  std::unordered_map<int, cudaStream_t> default_stream;   // taken from the pool
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
  KILN_CHECK(device_count() > 0, "pinned host memory needs a CUDA driver: {}", unavailable_reason());
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
  if (status != cudaSuccess) log::error("cudaFreeHost failed: {}", cudaGetErrorString(status));
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
    CachingAllocator::RawAllocator raw{
        [device](std::size_t bytes) -> void* {
          set_device(device);
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
          set_device(device);
          const cudaError_t status = cudaFree(ptr);
          if (status != cudaSuccess) log::error("cudaFree failed: {}", cudaGetErrorString(status));
        },
        [] { return !capture_in_progress(); }};
    slot = std::make_unique<CachingAllocator>(std::move(raw));
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
  if (auto it = state.current_stream.find(device); it != state.current_stream.end()) return it->second;
  auto it = state.default_stream.find(device);
  if (it == state.default_stream.end())
    it = state.default_stream.emplace(device, pool<cudaStream_t>().take(device, make_stream)).first;
  return it->second;
}

void set_current_stream(int device, cudaStream_t stream) {
  thread_state().current_stream[device] = stream;
}

cudaStream_t create_stream(int device) {
  set_device(device);
  cudaStream_t stream = nullptr;
  // Non-blocking: no implicit synchronisation with the legacy default stream.
  KILN_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  return stream;
}

void destroy_stream(cudaStream_t stream) {
  const cudaError_t status = cudaStreamDestroy(stream);
  if (status != cudaSuccess) log::debug("cudaStreamDestroy: {}", cudaGetErrorString(status));
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

void* create_event(int device) {
  set_device(device);
  cudaEvent_t event = nullptr;
  KILN_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDefault));
  return event;
}

void destroy_event(void* event) {
  const cudaError_t status = cudaEventDestroy(static_cast<cudaEvent_t>(event));
  if (status != cudaSuccess) log::debug("cudaEventDestroy: {}", cudaGetErrorString(status));
}

void record_event(void* event, cudaStream_t stream) {
  KILN_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(event), stream));
}

void synchronize_event(void* event) {
  KILN_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(event)));
}

bool query_event(void* event) {
  const cudaError_t status = cudaEventQuery(static_cast<cudaEvent_t>(event));
  if (status == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  KILN_CUDA_CHECK(status);
  return true;
}

float event_elapsed_ms(void* start, void* end) {
  synchronize_event(end);
  float ms = 0.0f;
  KILN_CUDA_CHECK(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start), static_cast<cudaEvent_t>(end)));
  return ms;
}

cublasHandle_t cublas_handle(int device, cudaStream_t stream) {
  ThreadState& state = thread_state();
  auto it = state.cublas.find(device);
  if (it == state.cublas.end())
    it = state.cublas.emplace(device, pool<cublasHandle_t>().take(device, make_cublas)).first;
  KILN_CUBLAS_CHECK(cublasSetStream(it->second, stream));
  return it->second;
}

}  // namespace kiln::cuda

namespace kiln::detail {

cudaStream_t prepare_cuda(Device device) {
  cuda::set_device(device.index());
  return cuda::current_stream(device.index());
}

}  // namespace kiln::detail
